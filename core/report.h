/* report.h - the warnings an install collects on the way and shows once
 * at the end. (The summary line is the CLI's, from nub_install_result.) */
#ifndef NUB_REPORT_H
#define NUB_REPORT_H

struct nub_install_ctx;

/* One line naming the dependencies whose install scripts were not run. */
void nub_report_blocked(struct nub_install_ctx *c);

#endif
