/* cmd_run.c - `nub run` (`run-script`), `nub <script>`, `nub exec` and nubx:
 * flags -> run.h. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "nub_alloc.h"
#include "run.h"

const char cli_run_help[] =
    "usage: nub run [flags] <script> [args...]\n"
    "       nub <script> [args...]        (when <script> is not a nub command)\n"
    "       nub test | start | stop | restart [args...]\n\n"
    "Run a script of the nearest package.json, with pre<script> and post<script>\n"
    "around it, node_modules/.bin of every directory up on PATH and npm's\n"
    "environment (npm_lifecycle_event, npm_package_*, INIT_CWD, ...). Arguments\n"
    "after the script name (a leading `--` is dropped) go to the script. The exit\n"
    "status is the script's. Without a script name, lists the scripts.\n\n"
    "flags:\n"
    "  --if-present      exit 0 when the script does not exist\n"
    "  -s, --silent      print nothing of nub's own\n"
    "  -C, --dir <dir>   run in <dir>\n";

const char cli_exec_help[] =
    "usage: nub exec <command> [args...]\n"
    "       nubx <command> [args...]\n\n"
    "Run a command of the project's node_modules/.bin (or from PATH) in the\n"
    "current directory, with the scripts' environment.\n";

static void list_scripts(FILE *out, const char *dir, const struct nub_manifest *m)
{
  fprintf(out, "Scripts in %s%s%s (%s/package.json):\n", m->name ? m->name : "the project",
          m->version ? "@" : "", m->version ? m->version : "", dir);
  if (!m->scripts.n)
    fprintf(out, "  (none)\n");
  for (size_t i = 0; i < m->scripts.n; i++)
    fprintf(out, "  %s\n    %s\n", m->scripts.v[i].name, m->scripts.v[i].spec);
}

static int cwd_of(const char *dir, char *out, size_t cap)
{
  if (!dir)
    return getcwd(out, cap) ? 0 : -1;
  if (dir[0] == '/') {
    snprintf(out, cap, "%s", dir);
    return 0;
  }
  {
    char here[4096];
    if (!getcwd(here, sizeof(here)))
      return -1;
    snprintf(out, cap, "%s/%s", here, dir);
  }
  return 0;
}

/* `script` NULL: from argv. */
static int run(int argc, char **argv, const char *script)
{
  const char *dir = NULL;
  bool if_present = false, silent = false;
  int i = 1, status = 0, rc;
  char cwd[4096], *proj = NULL;
  struct nub_manifest man;
  struct nub_err err;
  struct nub_run_opts o;

  nub_err_clear(&err);
  for (; !script && i < argc && argv[i][0] == '-'; i++) {
    if (!strcmp(argv[i], "--if-present"))
      if_present = true;
    else if (!strcmp(argv[i], "-s") || !strcmp(argv[i], "--silent"))
      silent = true;
    else if ((!strcmp(argv[i], "-C") || !strcmp(argv[i], "--dir")) && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--"))
      continue;
    else
      return cli_usage("unknown flag '%s' for run", argv[i]);
  }
  if (script && i + 1 < argc && !strcmp(argv[i], "--dir")) { /* from `nub -C x <script>` */
    dir = argv[i + 1];
    i += 2;
  }
  if (cwd_of(dir, cwd, sizeof(cwd)) < 0)
    return cli_usage("cannot read the current directory");
  rc = nub_run_project(cwd, &proj, &man, &err);
  if (rc < 0)
    return cli_fail(&err);
  if (!script && i >= argc) {
    list_scripts(stdout, proj, &man);
    nub_manifest_release(&man);
    nub_free(proj);
    return 0;
  }
  if (!script)
    script = argv[i++];
  /* nub's own flags may follow the script name too (npm reads them
   * anywhere); what follows `--` is the script's alone */
  {
    int k = i, w = i;
    for (; k < argc && strcmp(argv[k], "--"); k++) {
      if (!strcmp(argv[k], "--if-present"))
        if_present = true;
      else if (!strcmp(argv[k], "--silent"))
        silent = true;
      else
        argv[w++] = argv[k];
    }
    if (k < argc)
      k++; /* the `--` itself */
    while (k < argc)
      argv[w++] = argv[k++];
    argc = w;
  }
  if (!nub_depmap_get(&man.scripts, script)) {
    int ex = 0;
    if (!if_present) {
      fprintf(stderr, "nub: error: no script '%s' in %s/package.json\n", script, proj);
      if (!silent)
        list_scripts(stderr, proj, &man);
      ex = 1;
    }
    nub_manifest_release(&man);
    nub_free(proj);
    return ex;
  }
  memset(&o, 0, sizeof(o));
  o.dir = proj;
  o.init_cwd = cwd;
  o.man = &man;
  o.script = script;
  o.args = argv + i;
  o.nargs = (size_t)(argc - i);
  rc = nub_run_script(&o, &status, &err);
  nub_manifest_release(&man);
  nub_free(proj);
  if (rc < 0)
    return cli_fail(&err);
  return status;
}

int cmd_run(int argc, char **argv) { return run(argc, argv, NULL); }

int cli_run_named(int argc, char **argv, const char *script)
{
  return run(argc, argv, script);
}

bool cli_has_script(const char *name)
{
  char cwd[4096], *proj = NULL;
  struct nub_manifest man;
  struct nub_err err;
  bool has;

  if (!getcwd(cwd, sizeof(cwd)) || nub_run_project(cwd, &proj, &man, &err) < 0)
    return false;
  has = nub_depmap_get(&man.scripts, name) != NULL;
  nub_manifest_release(&man);
  nub_free(proj);
  return has;
}

int cmd_exec(int argc, char **argv)
{
  char cwd[4096], *proj = NULL;
  struct nub_manifest man;
  struct nub_err err;
  int i = 1;

  nub_err_clear(&err);
  if (i < argc && (!strcmp(argv[i], "-C") || !strcmp(argv[i], "--dir")) && i + 1 < argc) {
    if (chdir(argv[i + 1]) < 0)
      return cli_usage("cannot change to %s", argv[i + 1]);
    i += 2;
  }
  if (i < argc && !strcmp(argv[i], "--"))
    i++;
  if (i >= argc)
    return cli_usage("exec needs a command");
  if (!getcwd(cwd, sizeof(cwd)))
    return cli_usage("cannot read the current directory");
  if (nub_run_project(cwd, &proj, &man, &err) < 0) {
    /* outside a project: PATH alone */
    proj = nub_strdup(cwd);
    memset(&man, 0, sizeof(man));
  }
  nub_run_exec(proj, cwd, &man, argv + i, &err);
  nub_manifest_release(&man);
  nub_free(proj);
  return cli_fail(&err) == 40 ? 127 : 126;
}
