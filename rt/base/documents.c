/* documents: the registry of the documents a jitterlab directory holds (documents.h). */
#include "documents.h"

const struct jl_document jl_documents[JL_NDOCUMENTS] = {
	[JL_DOC_RUN] = { "summary.json", "run, watch, and each run of a sweep or a cyclictest comparison",
			 "the run files listed above",
			 "everything a run measured: docs/outputs.md, every key in docs/summary-keys.md" },
	[JL_DOC_SWEEP] = { "sweep.json", "sweep", "report.md, report.html, strip plots, a directory per condition "
			   "and run; with --baseline compare.json and compare.md",
			   "each condition's runs, their statistics, the factor effects, the pooled tails, the verdicts" },
	[JL_DOC_COMPARE] = { "compare.json", "compare --out; sweep --baseline, into the sweep's directory",
			     "compare.md, report.html: the comparison's, or the sweep's when sweep --baseline wrote it",
			     "baseline against new: each metric's change with its 95% CI, the gates' verdicts, the "
			     "machines' differences" },
	[JL_DOC_CYCLICTEST] = { "cyclictest.json", "cyclictest", "a run directory per side and repetition",
				"cyclictest's and rtla timerlat's figures beside jitterlab's, under the same neighbours" },
	[JL_DOC_BASELINE] = { "baseline.json", "baseline save", "scenario.ini, budget.md",
			      "a kept set of runs to judge later runs against: each run's value of every metric, the "
			      "machine's fingerprint" },
};
