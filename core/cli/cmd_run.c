/* cmd_run.c - `nub run` (`run-script`), `nub <script>`, `nub exec` and nubx:
 * flags -> run.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "nub_alloc.h"
#include "run.h"
#include "session.h"
#include "workspace.h"

const char cli_run_help[] =
    "usage: nub run [flags] <script> [args...]\n"
    "       nub <script> [args...]        (when <script> is not a nub command)\n"
    "       nub test | start | stop | restart [args...]\n\n"
    "Run a script of the nearest package.json, with pre<script> and post<script>\n"
    "around it, node_modules/.bin of every directory up on PATH and npm's\n"
    "environment (npm_lifecycle_event, npm_package_*, INIT_CWD, ...). Arguments\n"
    "after the script name (a leading `--` is dropped) go to the script. The exit\n"
    "status is the script's. Without a script name, lists the scripts.\n";

const char cli_exec_help[] =
    "usage: nub exec <command> [args...]\n"
    "       nubx <command> [args...]\n\n"
    "Run a command of the project's node_modules/.bin (or from PATH) in the\n"
    "current directory, with the scripts' environment.\n";

enum { R_IF_PRESENT = 1, R_SILENT, R_DIR, R_RECURSIVE, R_FILTER, R_ROOT, R_CONCURRENCY };
static const struct cli_opt run_opts[] = {
  {"flags (before the script's name; what follows it is the script's):", CLI_OPT_TITLE, NULL,
   NULL},
  {"--if-present", R_IF_PRESENT, NULL, "exit 0 when the script does not exist"},
  {"-s|--silent", R_SILENT, NULL, "print nothing of nub's own"},
  {"-C|--dir", R_DIR, "<dir>", "run as if started in <dir>"},
  {"workspaces:", CLI_OPT_TITLE, NULL, NULL},
  {"-r|--recursive", R_RECURSIVE, NULL, "in every workspace package that has the script"},
  {"-F|--filter", R_FILTER, "<sel>", "in the packages selected (as for install)"},
  {"-w|--include-workspace-root", R_ROOT, NULL, "the root too"},
  {"--workspace-concurrency", R_CONCURRENCY, "<n>",
   "at most n at once (default 4); a package runs after the packages it depends on; "
   "output lines are prefixed with the package's directory and the script"},
  {NULL, 0, NULL, NULL},
};
const struct cli_opt *const cli_run_tabs[] = {run_opts, NULL};

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

struct out_ctx {
  const char *script;
};

static void print_line(void *ud, const char *project, const char *line, size_t len)
{
  struct out_ctx *oc = ud;
  printf("%s %s: %.*s\n", project, oc->script, (int)len, line);
  fflush(stdout);
}

/* The script across workspace packages (-r, --filter). */
static int run_many(const char *cwd, const char *script, char *const *filters, size_t nfilters,
                    bool include_root, int concurrency, bool if_present, char **args,
                    size_t nargs)
{
  struct nub_session s;
  struct nub_session_opts so = {cwd, NULL, NULL, 0, NULL, NULL, NULL};
  struct nub_err err;
  struct nub_run_many_opts mo;
  struct out_ctx oc = {script};
  bool *sel = NULL;
  int rc, status = 0;
  size_t ran = 0;

  nub_err_clear(&err);
  rc = nub_session_open(&s, NUB_OPEN_WORKSPACE, &so, &err);
  if (rc == 0 && !s.ws.source)
    rc = nub_err_set(&err, -NUB_EUSAGE, "-r and --filter run in workspace packages, but %s "
                     "is not a workspace", s.root);
  if (rc == 0)
    rc = nub_session_more(&s, NUB_OPEN_MEMBERS, &err);
  if (rc == 0) {
    sel = nub_calloc(s.ws.npkgs + 1, sizeof(bool));
    if (nfilters) {
      rc = nub_workspace_select(&s.ws, s.man.name, &s.man, s.cwd_rel, filters, nfilters, sel,
                                &err);
    } else {
      for (size_t i = 1; i <= s.ws.npkgs; i++)
        sel[i] = true;
    }
    if (include_root)
      sel[0] = true;
  }
  if (rc == 0) {
    memset(&mo, 0, sizeof(mo));
    mo.root = s.root;
    mo.init_cwd = cwd;
    mo.ws = &s.ws;
    mo.root_man = &s.man;
    mo.selected = sel;
    mo.script = script;
    mo.args = args;
    mo.nargs = nargs;
    mo.concurrency = concurrency;
    mo.on_line = print_line;
    mo.ud = &oc;
    rc = nub_run_many(&mo, &status, &ran, &err);
  }
  if (rc == 0 && !ran && !if_present)
    rc = nub_err_set(&err, -NUB_ESCRIPT, "none of the selected packages has a script '%s'",
                     script);
  nub_free(sel);
  nub_session_close(&s);
  if (rc < 0) {
    int ex = cli_fail(&err);
    return ex == 50 ? 1 : ex;
  }
  if (status)
    fprintf(stderr, "nub: error: %s\n", err.msg);
  return status;
}

/* `script` NULL: from argv. */
static int run(int argc, char **argv, const char *script)
{
  const char *dir = NULL;
  bool if_present = false, silent = false, recursive = false, include_root = false;
  char **filters = nub_calloc((size_t)argc + 1, sizeof(char *));
  size_t nfilters = 0;
  int concurrency = 4;
  int i = 1, status = 0, rc;
  char cwd[4096], *proj = NULL;
  struct nub_manifest man;
  struct nub_err err;
  struct nub_run_opts o;

  nub_err_clear(&err);
  if (!script) { /* nub's flags up to the script's name, the rest is the script's */
    int id;
    const char *val;
    while ((id = cli_opt_next(cli_run_tabs, "run", argc, argv, &i, &val)) != CLI_OPT_END) {
      if (id == CLI_OPT_BAD) {
        nub_free(filters);
        return 2;
      }
      if (id == CLI_OPT_ARG) {
        i--; /* the script's name: the caller's below */
        break;
      }
      switch (id) {
      case R_IF_PRESENT: if_present = true; break;
      case R_SILENT: silent = true; break;
      case R_DIR: dir = val; break;
      case R_RECURSIVE: recursive = true; break;
      case R_FILTER: filters[nfilters++] = (char *)val; break;
      case R_ROOT: include_root = true; break;
      case R_CONCURRENCY: concurrency = atoi(val); break;
      default: break;
      }
    }
  }
  if (script && i + 1 < argc && !strcmp(argv[i], "--dir")) { /* from `nub -C x <script>` */
    dir = argv[i + 1];
    i += 2;
  }
  if (cwd_of(dir, cwd, sizeof(cwd)) < 0) {
    nub_free(filters);
    return cli_usage("cannot read the current directory");
  }
  if (!script && (recursive || nfilters)) {
    int ex;
    if (i >= argc) {
      nub_free(filters);
      return cli_usage("-r and --filter need a script name");
    }
    script = argv[i++];
    if (i < argc && !strcmp(argv[i], "--"))
      i++;
    ex = run_many(cwd, script, filters, nfilters, include_root, concurrency < 1 ? 1 : concurrency,
                  if_present, argv + i, (size_t)(argc - i));
    nub_free(filters);
    return ex;
  }
  nub_free(filters);
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
