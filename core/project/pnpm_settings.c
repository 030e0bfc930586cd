/* pnpm_settings.c - the keys pnpm 12 knows in pnpm-workspace.yaml, for
 * naming the ones it does not (workspace.h).
 *
 * The list is pnpm 12.23's own: every key that pnpm, given the file, does
 * not report as "not recognized" (the candidates were the identifiers of
 * its binary and its changelog; ci/pnpm-settings.py checks the list against
 * an installed pnpm). Sorted, for bsearch. */
#include "workspace.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"

static const char *const keys[] = {
    "access", "addMissingPeerTypes", "aggregateOutput", "allProjects", "allowBuilds",
    "allowSameVersion", "allowUnusedPatches", "allowedDeprecatedVersions", "audit",
    "audit.ignorePrune", "auditConfig", "auditLevel", "authConfig", "autoConfirmAllPrompts",
    "autoDedupe", "autoInstallPeers", "autoInstallPeersFromHighestMatch", "bail", "bin",
    "binLinks", "blockExoticSubdeps", "bootConfig", "ca", "cacheDir", "cafile", "cargo", "catalog",
    "catalogMode", "catalogPrune", "catalogs", "cert", "changedFilesIgnorePattern",
    "childConcurrency", "ci", "cleanupUnusedCatalogs", "cliOptions", "color", "commitHooks",
    "concurrencyGroups", "configByUri", "configDependencies", "configDir", "cpu",
    "dangerouslyAllowAllBuilds", "dedupeDirectDeps", "dedupeInjectedDeps", "dedupePeerDependents",
    "dedupePeers", "deployAllFiles", "depth", "description", "dev", "dir",
    "disallowWorkspaceCycles", "dlxCacheMaxAge", "dryRun", "editor", "embedReadme",
    "enableGlobalVirtualStore", "enableModulesDir", "enablePnp", "enablePrePostScripts",
    "engineStrict", "excludeLinksFromLockfile", "executionEnv", "explicitlySetKeys",
    "extendNodePath", "externalDependencies", "extraBinPaths", "extraEnv", "failIfNoMatch",
    "fetchMinSpeedKiBps", "fetchRetries", "fetchRetryFactor", "fetchRetryMaxtimeout",
    "fetchRetryMintimeout", "fetchTimeout", "fetchWarnTimeoutMs", "fetchingConcurrency", "filter",
    "filterProd", "finders", "force", "forceIgnoresPlatform", "forceLegacyDeploy",
    "frozenLockfile", "frozenStore", "git", "gitBranchLockfile", "gitChecks", "gitShallowHosts",
    "gitTagVersion", "global", "globalBinDir", "globalDir", "globalPackagesConfig", "globalPath",
    "globalPkgDir", "globalPnpmfile", "globalPrefix", "globalShims", "globalVirtualStoreDir",
    "hoist", "hoistPattern", "hoistWorkspacePackages", "hoistingLimits", "hooks", "httpProxy",
    "httpsProxy", "ignoreCompatibilityDb", "ignoreCurrentSpecifiers", "ignorePnpmfile",
    "ignoreScripts", "ignoreWorkspace", "ignoreWorkspaceCycles", "ignoreWorkspaceRootCheck",
    "ignoredBuiltDependencies", "ignoredOptionalDependencies", "include", "includeWorkspaceRoot",
    "initAuthorEmail", "initAuthorName", "initAuthorUrl", "initLicense", "initPackageManager",
    "initType", "initVersion", "injectWorkspacePackages", "json", "key", "legacyDirFiltering",
    "libc", "linkWorkspacePackages", "localAddress", "lockfile", "lockfileDir",
    "lockfileIncludeTarballUrl", "lockfileOnly", "loglevel", "long", "macosBackup", "maxSockets",
    "maxTarballUnpackedSize", "maxsockets", "mergeGitBranchLockfiles",
    "mergeGitBranchLockfilesBranchPattern", "message", "minimumReleaseAge",
    "minimumReleaseAgeExclude", "minimumReleaseAgeExcludePrune",
    "minimumReleaseAgeIgnoreMissingTime", "minimumReleaseAgeStrict", "modulesCacheMaxAge",
    "modulesDir", "modulesDirsByProjectName", "namedRegistries", "networkConcurrency",
    "neverBuiltDependencies", "noProxy", "nodeDownloadMirrors", "nodeExperimentalPackageMap",
    "nodeLinker", "nodeOptions", "nodePackageMap", "nodePackageMap.type", "nodePackageMapType",
    "nodeVersion", "npmrcAuthFile", "offline", "only", "onlyBuiltDependencies",
    "onlyBuiltDependenciesFile", "optimisticRepeatInstall", "optional", "os", "otp", "overrides",
    "packGzipLevel", "packageConfigs", "packageExtensions", "packageImportMethod", "packageLock",
    "packageManager", "packageManagerNetworkConfig", "packageManagerRegistries", "packages",
    "parseable", "patchedDependencies", "patchesDir", "peerDependencyRules",
    "peersSuffixMaxLength", "pending", "permissions", "pipelineBase", "pipelines", "pmOnFail",
    "pnpmExecPath", "pnpmHomeDir", "pnpmfile", "pnprServer", "preferFrozenLockfile",
    "preferOffline", "preferSymlinkedExecutables", "preferWorkspacePackages", "prefix",
    "preserveAbsolutePaths", "prodAllProjectsGraph", "prodOnlySelectedProjectDirs", "production",
    "progress", "projectScopedOptionalPeers", "provenance", "proxy", "publicHoistPattern",
    "publishBranch", "publishWaitTimeout", "python", "recursive", "recursiveInstall",
    "referenceTime", "registries", "registriesByPrefix", "registriesByScope", "registry",
    "registryOptionsByUrl", "registrySupportsTimeField", "remoteCache", "remoteSideEffectsCache",
    "reporter", "reporterHidePrefix", "requiredScripts", "resolutionMode",
    "resolvePeersFromWorkspaceRoot", "reverse", "rootProjectManifest", "rootProjectManifestDir",
    "runtime", "runtimeOnFail", "save", "saveCatalogName", "saveExact", "saveOptional", "savePeer",
    "savePrefix", "saveProd", "saveTypes", "saveWorkspaceProtocol", "scope", "scriptShell",
    "scriptsPrependNodePath", "selectedProjectsGraph", "shamefullyHoist",
    "sharedWorkspaceLockfile", "shellEmulator", "sideEffectsCache", "sideEffectsCacheRead",
    "sideEffectsCacheReadonly", "sideEffectsCacheWrite", "signGitTag", "skills",
    "skipManifestObfuscation", "sort", "stateDir", "storeDir", "storeIndexFormat", "stream",
    "strictDepBuilds", "strictPeerDependencies", "strictSsl", "strictStorePkgContentCheck",
    "supportedArchitectures", "symlink", "symlinkedLockfileTargetDirs",
    "syncInjectedDepsAfterScripts", "tag", "tagVersionPrefix", "tasks", "testPattern", "tools",
    "trustLockfile", "trustPolicy", "trustPolicyExclude", "trustPolicyExcludePrune",
    "trustPolicyIgnoreAfter", "tryLoadDefaultPnpmfile", "umask", "unsafePerm", "update",
    "updateConfig", "updateNotifier", "useBetaCli", "useGitBranchLockfile", "useLockfile",
    "useRunningStoreServer", "useStderr", "useStoreServer", "userAgent", "userConfig",
    "userconfig", "verifyDepsBeforeRun", "verifyStoreIntegrity", "version", "versioning",
    "virtualStoreDir", "virtualStoreDirMaxLength", "virtualStoreOnly", "virtualStoreType",
    "wantedPackageManager", "warnUnusedOverrides", "workspaceConcurrency", "workspaceDir",
    "workspacePackages", "workspaceRoot",
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static int cmp(const void *a, const void *b)
{
  return strcmp((const char *)a, *(const char *const *)b);
}

bool nub_pnpm_setting_known(const char *key)
{
  return bsearch(key, keys, NKEYS, sizeof(keys[0]), cmp) != NULL;
}

const char *nub_pnpm_setting_nearest(const char *key)
{
  return nub_text_nearest(key, keys, NKEYS);
}
