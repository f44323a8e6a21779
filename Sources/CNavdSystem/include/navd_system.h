#ifndef NAVD_SYSTEM_H
#define NAVD_SYSTEM_H

#include <stdint.h>
#include <sys/socket.h>

/// SO_PEERCRED, for Swift (the macro is not visible through Glibc everywhere).
static const int navd_so_peercred = SO_PEERCRED;

/// Same layout as Linux's `struct ucred` (SO_PEERCRED), which Glibc only declares under _GNU_SOURCE.
struct navd_ucred {
    int32_t pid;
    uint32_t uid;
    uint32_t gid;
};

/// Sends one sd_notify datagram (e.g. "READY=1") to `socket_path` ($NOTIFY_SOCKET): a filesystem path or, with a
/// leading '@', an abstract socket. Returns 0, or -errno.
int navd_sd_notify(const char *socket_path, const char *message);

/// Whether user `uid` (primary group `gid`) is a member of group `group`, counting supplementary groups.
/// Returns 1, 0, or -1 when the user is unknown.
int navd_user_in_group(uint32_t uid, uint32_t gid, uint32_t group);

/// Names the calling thread (Linux keeps 15 bytes), as `top -H` and `ps -L` show it.
void navd_set_thread_name(const char *name);

/// Sets the calling thread's nice value (Linux: per thread); raising it needs no privilege. Returns 0 or -errno.
int navd_set_thread_niceness(int niceness);

/// Accepts a connection on listening socket `listener` as a non-blocking descriptor closed on exec (accept4, which
/// Glibc declares only under _GNU_SOURCE). Returns the descriptor, or -1 with errno set.
int navd_accept_nonblocking(int listener);

#endif
