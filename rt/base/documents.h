/* documents: the registry of the JSON documents that make a directory jitterlab wrote what it is, one row
 * each: its file name (only here), the command that writes it, the files beside it, what it holds. Their
 * writers and readers (report, compare, baseline, analyze, report.html) take the name from here; `jitterlab
 * list` ("directory documents") and the tests read the same rows. A run directory's other files are the run
 * outputs' registry (rt/cmd/run_outputs.c). */
#ifndef JL_DOCUMENTS_H
#define JL_DOCUMENTS_H

enum jl_document_kind {
	JL_DOC_RUN,        /* summary.json: a run's, or a watch's */
	JL_DOC_SWEEP,      /* sweep.json */
	JL_DOC_COMPARE,    /* compare.json */
	JL_DOC_CYCLICTEST, /* cyclictest.json */
	JL_DOC_BASELINE,   /* baseline.json */
	JL_NDOCUMENTS
};

struct jl_document {
	const char *file;    /* the document's name in its directory */
	const char *writer;  /* the commands that write it */
	const char *beside;  /* the files a directory holding it has as well */
	const char *help;    /* what it holds */
};

extern const struct jl_document jl_documents[JL_NDOCUMENTS];

/* KIND's file name ("sweep.json") */
static inline const char *jl_document_file(enum jl_document_kind kind)
{
	return jl_documents[kind].file;
}

#endif
