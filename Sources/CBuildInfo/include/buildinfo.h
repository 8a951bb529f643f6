#ifndef TONGBAN_BUILDINFO_H
#define TONGBAN_BUILDINFO_H
/// The commit this binary was built from ("abc1234", "abc1234-dirty"), or
/// "unknown" when it was built without the Makefile (plain `swift build`).
const char *tongban_build_commit(void);
#endif
