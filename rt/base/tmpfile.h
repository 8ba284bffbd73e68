/* tmpfile: an anonymous 0600 file in /tmp (O_TMPFILE, else a named one unlinked at once); -1 with errno. */
#ifndef JL_TMPFILE_H
#define JL_TMPFILE_H

int jl_tmpfile(void);

#endif
