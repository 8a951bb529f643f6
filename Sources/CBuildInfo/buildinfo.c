#include "buildinfo.h"
// commit.h is written by the Makefile (`make buildinfo`) and kept out of git:
// a plain `swift build` has none and says "unknown".
#if __has_include("commit.h")
#include "commit.h"
#endif
#ifndef TONGBAN_COMMIT
#define TONGBAN_COMMIT "unknown"
#endif

const char *tongban_build_commit(void) { return TONGBAN_COMMIT; }
