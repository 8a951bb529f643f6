// Linux epoll, which Swift's Glibc module leaves out (the bench's load generator).
#include <sys/epoll.h>
