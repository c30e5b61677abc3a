// fake_evdev: a FUSE file system that serves fake Linux input nodes for the InputDevices tests.
//
// The machines that run HitThat's tests have no /dev/input and no /dev/uinput, but they do have
// /dev/fuse. This program mounts a directory whose files behave like evdev (or joydev) nodes
// through the real open(2), ioctl(2) and read(2) paths:
//
//   fake_evdev SPEC_DIR MOUNT_DIR
//
// SPEC_DIR holds one sub-directory per node; the node in MOUNT_DIR gets the sub-directory's name.
// Each sub-directory may hold:
//   ioctl-TT-NN   the reply to every _IOC_READ ioctl whose _IOC_TYPE is 0xTT and _IOC_NR is 0xNN
//                 (lower-case hex), e.g. ioctl-45-06 for EVIOCGNAME, ioctl-45-43 for EVIOCGABS(ABS_Z).
//                 An ioctl without a reply file fails with EINVAL, like evdev's default case.
//   events        the bytes read(2) returns, in order, to every opener (each open starts at 0).
//   unplug-at     a decimal byte offset: once a reader reaches it the node is unplugged, that is,
//                 it disappears from the directory and reads and ioctls on open handles fail with
//                 ENODEV, as evdev does after the device is disconnected.
//   deny-open     if present, open(2) fails with EACCES.
//   gid           a decimal group id reported by stat(2) (default 0).
//   hold-at       decimal byte offsets, ascending: gates in `events`. A read stops short of a closed
//                 gate and, at it, blocks (as a device with no new events does) until the gate opens.
//   released      (written by the test while the node is read) how many gates are open, from the
//                 first; re-read while a reader waits.
//   held          (written here) the 1-based number of the gate a reader waits at: every byte
//                 before it has been read.
// At the end of `events` (without unplug-at) read(2) returns 0, the end of a recording.
//
// Why this works: for a regular FUSE file the kernel runs ioctls in "restricted" mode, where it
// copies _IOC_SIZE(cmd) bytes in or out as the request number encodes (Documentation/filesystems/
// fuse.rst, fs/fuse/ioctl.c). The evdev queries EVIOCGNAME/ID/PROP/BIT/ABS and the joydev queries
// JSIOCGAXES/JSIOCGNAME are all _IOC_READ with their size encoded, so they can be served.
// EVIOCGRAB cannot: it is declared _IOW(int) but evdev takes the int by value, not by pointer.
//
// The process exits cleanly (unmounting) on SIGTERM/SIGINT, when its parent dies, or after
// FAKE_EVDEV_LIFETIME seconds (default 120), so an aborted test run leaves no stale mount.

#define FUSE_USE_VERSION 35
#include <fuse.h>
#include <fuse_lowlevel.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

enum { max_nodes = 16, max_replies = 96, max_holds = 64 };

struct reply {
    unsigned type, nr;
    unsigned char *bytes;
    size_t length;
};

struct node {
    char name[64];
    struct reply replies[max_replies];
    int reply_count;
    unsigned char *events;
    size_t events_length;
    long long unplug_at; // -1: never
    int deny_open;
    gid_t gid;
    long long holds[max_holds];
    int hold_count;
    char directory[4096];
    volatile int unplugged;
};

struct handle {
    struct node *node;
    size_t offset;
};

static struct node nodes[max_nodes];
static int node_count;
static pthread_t main_thread;

// MARK: - Loading the spec

static unsigned char *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    size_t capacity = 4096, used = 0;
    unsigned char *buffer = malloc(capacity);
    size_t got;
    while (buffer && (got = fread(buffer + used, 1, capacity - used, file)) > 0) {
        used += got;
        if (used == capacity) buffer = realloc(buffer, capacity *= 2);
    }
    fclose(file);
    *length = used;
    return buffer;
}

static long long read_number(const char *directory, const char *name, long long fallback) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    size_t length;
    unsigned char *text = read_file(path, &length);
    if (!text) return fallback;
    text = realloc(text, length + 1);
    text[length] = 0;
    long long value = strtoll((char *)text, NULL, 10);
    free(text);
    return value;
}

static int load_node(const char *spec, const char *name) {
    if (node_count == max_nodes) return -1;
    struct node *node = &nodes[node_count];
    char directory[4096], path[8192];
    snprintf(directory, sizeof directory, "%s/%s", spec, name);
    snprintf(node->name, sizeof node->name, "%s", name);
    snprintf(node->directory, sizeof node->directory, "%s", directory);
    DIR *dir = opendir(directory);
    if (!dir) return -1;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        unsigned type, nr;
        if (sscanf(entry->d_name, "ioctl-%2x-%2x", &type, &nr) != 2) continue;
        if (node->reply_count == max_replies) break;
        struct reply *reply = &node->replies[node->reply_count++];
        snprintf(path, sizeof path, "%s/%s", directory, entry->d_name);
        reply->type = type;
        reply->nr = nr;
        reply->bytes = read_file(path, &reply->length);
    }
    closedir(dir);
    snprintf(path, sizeof path, "%s/events", directory);
    node->events = read_file(path, &node->events_length);
    node->unplug_at = read_number(directory, "unplug-at", -1);
    node->gid = (gid_t)read_number(directory, "gid", 0);
    snprintf(path, sizeof path, "%s/deny-open", directory);
    node->deny_open = access(path, F_OK) == 0;
    snprintf(path, sizeof path, "%s/hold-at", directory);
    size_t length;
    char *holds = (char *)read_file(path, &length);
    if (holds) {
        holds = realloc(holds, length + 1);
        holds[length] = 0;
        char *cursor = holds, *next;
        long long offset;
        while (node->hold_count < max_holds && (offset = strtoll(cursor, &next, 10), next != cursor)) {
            node->holds[node->hold_count++] = offset;
            cursor = next;
        }
        free(holds);
    }
    node_count++;
    return 0;
}

static int load_spec(const char *spec) {
    DIR *dir = opendir(spec);
    if (!dir) return -1;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (entry->d_name[0] == '.') continue;
        if (load_node(spec, entry->d_name) != 0) {
            closedir(dir);
            return -1;
        }
    }
    closedir(dir);
    return 0;
}

static struct node *find_node(const char *path) {
    for (int i = 0; i < node_count; i++)
        if (path[0] == '/' && strcmp(path + 1, nodes[i].name) == 0 && !nodes[i].unplugged)
            return &nodes[i];
    return NULL;
}

// MARK: - File system operations

static int fake_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
    (void)fi;
    memset(st, 0, sizeof *st);
    if (strcmp(path, "/") == 0) {
        st->st_mode = S_IFDIR | 0755;
        st->st_nlink = 2;
        return 0;
    }
    struct node *node = find_node(path);
    if (!node) return -ENOENT;
    st->st_mode = S_IFREG | 0660;
    st->st_nlink = 1;
    st->st_gid = node->gid;
    return 0;
}

static int fake_readdir(const char *path, void *buffer, fuse_fill_dir_t fill, off_t offset,
                        struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
    (void)offset; (void)fi; (void)flags;
    if (strcmp(path, "/") != 0) return -ENOENT;
    fill(buffer, ".", NULL, 0, 0);
    fill(buffer, "..", NULL, 0, 0);
    for (int i = 0; i < node_count; i++)
        if (!nodes[i].unplugged) fill(buffer, nodes[i].name, NULL, 0, 0);
    return 0;
}

static int fake_open(const char *path, struct fuse_file_info *fi) {
    struct node *node = find_node(path);
    if (!node) return -ENOENT;
    if (node->deny_open) return -EACCES;
    struct handle *handle = calloc(1, sizeof *handle);
    if (!handle) return -ENOMEM;
    handle->node = node;
    fi->fh = (uint64_t)(uintptr_t)handle;
    // A character device has no size and no page cache: every read(2) must reach us.
    fi->direct_io = 1;
    fi->nonseekable = 1;
    return 0;
}

static int fake_release(const char *path, struct fuse_file_info *fi) {
    (void)path;
    free((void *)(uintptr_t)fi->fh);
    return 0;
}

// Blocks at closed gate `gate` (0-based) until the test opens it. Gives up when the file system is
// stopping or the read was interrupted, so a killed reader or a stopped fixture never waits on it.
static int wait_at_gate(struct node *node, int gate) {
    char path[8192], temporary[8192];
    snprintf(temporary, sizeof temporary, "%s/held.tmp", node->directory);
    snprintf(path, sizeof path, "%s/held", node->directory);
    FILE *file = fopen(temporary, "w");
    if (file) {
        fprintf(file, "%d", gate + 1);
        fclose(file);
        rename(temporary, path);
    }
    struct fuse_session *session = fuse_get_session(fuse_get_context()->fuse);
    while (read_number(node->directory, "released", 0) <= gate) {
        if (fuse_session_exited(session) || fuse_interrupted()) return -EINTR;
        usleep(5 * 1000);
    }
    return 0;
}

static int fake_read(const char *path, char *buffer, size_t size, off_t offset,
                     struct fuse_file_info *fi) {
    (void)path; (void)offset;
    struct handle *handle = (struct handle *)(uintptr_t)fi->fh;
    struct node *node = handle->node;
    if (node->unplugged) return -ENODEV;
    size_t end = node->events_length;
    if (node->unplug_at >= 0 && (size_t)node->unplug_at < end) end = (size_t)node->unplug_at;
    for (int gate = 0; gate < node->hold_count; gate++) {
        size_t at = (size_t)node->holds[gate];
        if (at < handle->offset || read_number(node->directory, "released", 0) > gate) continue;
        if (at > handle->offset) {
            if (at < end) end = at;
            break;
        }
        int status = wait_at_gate(node, gate);
        if (status != 0) return status;
    }
    if (handle->offset >= end) {
        if (node->unplug_at >= 0) {
            node->unplugged = 1;
            return -ENODEV;
        }
        return 0;
    }
    size_t count = end - handle->offset;
    if (count > size) count = size;
    memcpy(buffer, node->events + handle->offset, count);
    handle->offset += count;
    return (int)count;
}

// evdev returns the byte count for the variable-length string and bitmap queries (EVIOCGNAME,
// EVIOCGPHYS, EVIOCGUNIQ, EVIOCGPROP, EVIOCGBIT, JSIOCGNAME) and 0 for fixed-size structs.
static int returns_length(unsigned type, unsigned nr) {
    if (type == 'E') return (nr >= 0x06 && nr <= 0x09) || (nr >= 0x20 && nr < 0x40);
    if (type == 'j') return nr == 0x13;
    return 0;
}

static int fake_ioctl(const char *path, unsigned int cmd, void *arg, struct fuse_file_info *fi,
                      unsigned int flags, void *data) {
    (void)path; (void)arg;
    struct node *node = ((struct handle *)(uintptr_t)fi->fh)->node;
    if (node->unplugged) return -ENODEV;
    if (flags & FUSE_IOCTL_COMPAT) return -ENOSYS;
    if (!(_IOC_DIR(cmd) & _IOC_READ)) return -EINVAL;
    size_t size = _IOC_SIZE(cmd);
    for (int i = 0; i < node->reply_count; i++) {
        struct reply *reply = &node->replies[i];
        if (reply->type != _IOC_TYPE(cmd) || reply->nr != _IOC_NR(cmd)) continue;
        size_t count = reply->length < size ? reply->length : size;
        memset(data, 0, size);
        memcpy(data, reply->bytes, count);
        return returns_length(reply->type, reply->nr) ? (int)count : 0;
    }
    return -EINVAL;
}

// MARK: - Lifetime

static void *watchdog(void *unused) {
    (void)unused;
    // Signals must reach the main thread, whose read of /dev/fuse they interrupt; not this one.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pid_t parent = getppid();
    const char *lifetime_text = getenv("FAKE_EVDEV_LIFETIME");
    long lifetime_ms = (lifetime_text ? atol(lifetime_text) : 120) * 1000;
    for (long waited = 0; waited < lifetime_ms && getppid() == parent; waited += 100)
        usleep(100 * 1000);
    // Interrupts the main thread's read of /dev/fuse so fuse_main unmounts and returns.
    pthread_kill(main_thread, SIGTERM);
    return NULL;
}

static void *fake_init(struct fuse_conn_info *connection, struct fuse_config *config) {
    (void)connection;
    config->direct_io = 1;
    // No caching of names or attributes, so an unplugged node vanishes at once.
    config->entry_timeout = 0;
    config->negative_timeout = 0;
    config->attr_timeout = 0;
    pthread_t thread;
    pthread_create(&thread, NULL, watchdog, NULL);
    pthread_detach(thread);
    printf("ready\n");
    fflush(stdout);
    return NULL;
}

static const struct fuse_operations operations = {
    .init = fake_init,
    .getattr = fake_getattr,
    .readdir = fake_readdir,
    .open = fake_open,
    .release = fake_release,
    .read = fake_read,
    .ioctl = fake_ioctl,
};

int main(int argc, char *argv[]) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s SPEC_DIR MOUNT_DIR\n", argv[0]);
        return 2;
    }
    if (load_spec(argv[1]) != 0) {
        fprintf(stderr, "fake_evdev: cannot load spec directory %s\n", argv[1]);
        return 2;
    }
    // A parent may spawn us with signals blocked (test runners do); SIGTERM must stop us.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    main_thread = pthread_self();
    // Multi-threaded: while one reader waits at a gate, another thread must take the kernel's
    // FUSE_INTERRUPT for it when that reader is killed, or the reader would hang unkillable.
    char *fuse_argv[] = {argv[0], "-f", "-o", "fsname=fake_evdev", argv[2], NULL};
    return fuse_main(5, fuse_argv, &operations, NULL);
}
