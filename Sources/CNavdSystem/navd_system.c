#define _GNU_SOURCE
#include "navd_system.h"

#include <errno.h>
#include <pthread.h>
#include <grp.h>
#include <pwd.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

_Static_assert(sizeof(struct navd_ucred) == sizeof(struct ucred), "navd_ucred must match struct ucred");

int navd_sd_notify(const char *socket_path, const char *message) {
    size_t path_length = strlen(socket_path);
    struct sockaddr_un address;
    if (path_length == 0 || path_length >= sizeof(address.sun_path)) return -EINVAL;
    memset(&address, 0, sizeof(address));
    address.sun_family = AF_UNIX;
    memcpy(address.sun_path, socket_path, path_length);
    if (socket_path[0] == '@') address.sun_path[0] = '\0';
    socklen_t address_length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + path_length);

    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    ssize_t sent = sendto(fd, message, strlen(message), MSG_NOSIGNAL, (struct sockaddr *)&address, address_length);
    int saved = errno;
    close(fd);
    return sent < 0 ? -saved : 0;
}

int navd_user_in_group(uint32_t uid, uint32_t gid, uint32_t group) {
    if (gid == group) return 1;
    char buffer[16384];
    struct passwd entry;
    struct passwd *found = NULL;
    if (getpwuid_r(uid, &entry, buffer, sizeof(buffer), &found) != 0 || found == NULL) return -1;
    int count = 64;
    gid_t *groups = malloc(sizeof(gid_t) * (size_t)count);
    if (groups == NULL) return -1;
    if (getgrouplist(found->pw_name, gid, groups, &count) < 0) {
        gid_t *bigger = realloc(groups, sizeof(gid_t) * (size_t)count);
        if (bigger == NULL) { free(groups); return -1; }
        groups = bigger;
        if (getgrouplist(found->pw_name, gid, groups, &count) < 0) { free(groups); return -1; }
    }
    int member = 0;
    for (int i = 0; i < count; i++) {
        if (groups[i] == group) { member = 1; break; }
    }
    free(groups);
    return member;
}

void navd_set_thread_name(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof(truncated) - 1);
    truncated[sizeof(truncated) - 1] = '\0';
    pthread_setname_np(pthread_self(), truncated);
}

int navd_set_thread_niceness(int niceness) {
    // On Linux the nice value belongs to the thread: PRIO_PROCESS with the thread's id sets it alone.
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), niceness) == 0 ? 0 : -errno;
}

int navd_accept_nonblocking(int listener) {
    return accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
