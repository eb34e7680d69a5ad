/*
 * mllp-ack-server: the MLLP upstream of the benchmarks (test/bench/scenarios/mllp.ts). It reads MLLP-framed HL7 v2
 * messages, several per connection, and answers each with a framed ACK built from the inbound MSH (sender and
 * receiver swapped, MSA-2 = the inbound MSH-10), MSA-1 AA. One thread per connection, blocking sockets: the
 * benchmark has a handful of connections, and C keeps the upstream's share of a 2-core machine small.
 *
 *   mllp-ack-server [--port 0] [--host 127.0.0.1] [--reply aa|ae|wrong-id|unframed|none|close] [--bad-every N]
 *
 * Prints "listening <port>" on stdout once bound, then serves until SIGTERM or SIGINT. --reply with --bad-every N
 * makes every Nth message (over all connections) get that wrong answer instead of AA: the load generator's own test
 * uses it to show that a wrong reply is counted as an error.
 *
 * Every fault ends: a connection idle for 10 minutes (SO_RCVTIMEO) or holding a message above 16 MiB is closed;
 * bytes outside a frame are dropped.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MLLP_START 0x0B
#define MLLP_END 0x1C
#define CR 0x0D
#define MAX_MESSAGE (16 * 1024 * 1024)
#define IDLE_SECONDS 600
/* Fields of the inbound MSH copied into the ACK are cut to this length, so an ACK always fits its buffer. */
#define MAX_FIELD 200

enum reply_mode { REPLY_AA, REPLY_AE, REPLY_WRONG_ID, REPLY_UNFRAMED, REPLY_NONE, REPLY_CLOSE };

static enum reply_mode bad_mode = REPLY_AA;
static long bad_every = 0;
static atomic_long message_count;

/* Field `n` of the MSH segment (MSH-n, n >= 3, as HL7 numbers them; MSH-1 is the separator itself). */
static void msh_field(const char *msh, size_t len, char sep, int n, char *out) {
  int field = 2; /* msh + 4 starts MSH-2 */
  size_t i = 4;
  while (i < len && field < n) {
    if (msh[i] == sep) field++;
    i++;
  }
  size_t o = 0;
  if (field == n) {
    while (i < len && msh[i] != sep && o < MAX_FIELD) out[o++] = msh[i++];
  }
  out[o] = '\0';
}

/*
 * Writes the ACK for one inbound message into out (framed unless the mode is unframed); returns its length.
 * `mode` is AA unless this message was picked for a wrong answer.
 */
static size_t build_ack(const char *msg, size_t len, enum reply_mode mode, char *out, size_t cap) {
  char stamp[32];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
  size_t segment = 0;
  while (segment < len && msg[segment] != '\r' && msg[segment] != '\n') segment++;
  char sep = '|';
  char encoding[8] = "^~\\&";
  char f3[MAX_FIELD + 1] = "", f4[MAX_FIELD + 1] = "", f5[MAX_FIELD + 1] = "", f6[MAX_FIELD + 1] = "";
  char f9[MAX_FIELD + 1] = "", f10[MAX_FIELD + 1] = "", f11[MAX_FIELD + 1] = "P", f12[MAX_FIELD + 1] = "2.5.1";
  const char *code = "AA";
  if (segment >= 8 && memcmp(msg, "MSH", 3) == 0) {
    sep = msg[3];
    size_t e = 0;
    while (4 + e < segment && msg[4 + e] != sep && e < sizeof encoding - 1) {
      encoding[e] = msg[4 + e];
      e++;
    }
    encoding[e] = '\0';
    msh_field(msg, segment, sep, 3, f3);
    msh_field(msg, segment, sep, 4, f4);
    msh_field(msg, segment, sep, 5, f5);
    msh_field(msg, segment, sep, 6, f6);
    msh_field(msg, segment, sep, 9, f9);
    msh_field(msg, segment, sep, 10, f10);
    msh_field(msg, segment, sep, 11, f11);
    msh_field(msg, segment, sep, 12, f12);
  } else {
    code = "AR"; /* not HL7: rejected, as a real receiver would */
  }
  if (mode == REPLY_AE) code = "AE";
  /* ACK^<trigger of MSH-9>^ACK, the trigger being MSH-9's second component. */
  char component = encoding[0] != '\0' ? encoding[0] : '^';
  char trigger[MAX_FIELD + 1] = "";
  char *first = strchr(f9, component);
  if (first != NULL) {
    char *second = strchr(first + 1, component);
    size_t n = second != NULL ? (size_t)(second - first - 1) : strlen(first + 1);
    memcpy(trigger, first + 1, n);
    trigger[n] = '\0';
  }
  const char *suffix = mode == REPLY_WRONG_ID ? "X" : "";
  size_t o = 0;
  if (mode != REPLY_UNFRAMED) out[o++] = MLLP_START;
  int n = snprintf(out + o, cap - o - 2,
                   "MSH%c%s%c%s%c%s%c%s%c%s%c%s%c%cACK%c%s%cACK%cA%s%c%s%c%s\rMSA%c%s%c%s%s\r",
                   sep, encoding, sep, f5, sep, f6, sep, f3, sep, f4, sep, stamp, sep, sep, component, trigger,
                   component, sep, f10, sep, f11, sep, f12, sep, code, sep, f10, suffix);
  if (n < 0) n = 0;
  if ((size_t)n > cap - o - 3) n = (int)(cap - o - 3);
  o += (size_t)n;
  out[o++] = MLLP_END;
  out[o++] = CR;
  return o;
}

/* Writes all of buf, across partial writes and EINTR; 0 when the connection failed. */
static int write_all(int fd, const char *buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = send(fd, buf + done, len - done, MSG_NOSIGNAL);
    if (n > 0) done += (size_t)n;
    else if (n == -1 && errno == EINTR) continue;
    else return 0;
  }
  return 1;
}

static void *serve(void *arg) {
  int fd = (int)(intptr_t)arg;
  struct timeval idle = {IDLE_SECONDS, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof idle);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &idle, sizeof idle);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  size_t cap = 64 * 1024;
  char *buf = malloc(cap);
  char ack[8 * MAX_FIELD + 256];
  size_t have = 0;
  int in_frame = 0;
  if (buf == NULL) goto done;
  for (;;) {
    if (have == cap) {
      if (cap >= MAX_MESSAGE + 2) goto done; /* a message above the limit: drop the connection */
      size_t grown_cap = cap * 2;
      char *grown = realloc(buf, grown_cap);
      if (grown == NULL) goto done;
      buf = grown;
      cap = grown_cap;
    }
    ssize_t n = recv(fd, buf + have, cap - have, 0);
    if (n == 0) goto done;
    if (n < 0) {
      if (errno == EINTR) continue;
      goto done; /* reset, or idle past the timeout */
    }
    size_t scan_from = have > 0 ? have - 1 : 0;
    have += (size_t)n;
    /* Take every whole frame out of buf; keep the unfinished rest at its start. */
    size_t start = 0;
    for (;;) {
      if (!in_frame) {
        while (start < have && (unsigned char)buf[start] != MLLP_START) start++; /* bytes outside a frame */
        if (start == have) {
          have = 0;
          start = 0;
          scan_from = 0;
          break;
        }
        in_frame = 1;
        scan_from = start + 1;
      }
      size_t end = scan_from > start + 1 ? scan_from : start + 1;
      while (end + 1 < have && !((unsigned char)buf[end] == MLLP_END && buf[end + 1] == CR)) end++;
      if (end + 1 >= have) {
        /* Unfinished: move it to the front and read more. */
        memmove(buf, buf + start, have - start);
        have -= start;
        scan_from = have > 0 ? have - 1 : 0;
        break;
      }
      const char *msg = buf + start + 1;
      size_t len = end - start - 1;
      long count = atomic_fetch_add(&message_count, 1) + 1;
      enum reply_mode mode = bad_every > 0 && count % bad_every == 0 ? bad_mode : REPLY_AA;
      if (mode == REPLY_CLOSE) goto done;
      if (mode != REPLY_NONE) {
        size_t ack_len = build_ack(msg, len, mode, ack, sizeof ack);
        if (!write_all(fd, ack, ack_len)) goto done;
      }
      in_frame = 0;
      start = end + 2;
      scan_from = start;
    }
  }
done:
  free(buf);
  close(fd);
  return NULL;
}

static void usage(void) {
  fprintf(stderr, "usage: mllp-ack-server [--port 0] [--host 127.0.0.1] [--reply aa|ae|wrong-id|unframed|none|close] [--bad-every N]\n");
}

int main(int argc, char **argv) {
  const char *host = "127.0.0.1";
  int port = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v == NULL) {
      usage();
      return 2;
    }
    if (strcmp(a, "--port") == 0) port = atoi(v);
    else if (strcmp(a, "--host") == 0) host = v;
    else if (strcmp(a, "--bad-every") == 0) bad_every = atol(v);
    else if (strcmp(a, "--reply") == 0) {
      if (strcmp(v, "aa") == 0) bad_mode = REPLY_AA;
      else if (strcmp(v, "ae") == 0) bad_mode = REPLY_AE;
      else if (strcmp(v, "wrong-id") == 0) bad_mode = REPLY_WRONG_ID;
      else if (strcmp(v, "unframed") == 0) bad_mode = REPLY_UNFRAMED;
      else if (strcmp(v, "none") == 0) bad_mode = REPLY_NONE;
      else if (strcmp(v, "close") == 0) bad_mode = REPLY_CLOSE;
      else {
        usage();
        return 2;
      }
    } else {
      usage();
      return 2;
    }
    i++;
  }
  if (port < 0 || port > 65535 || bad_every < 0) {
    usage();
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_port = htons((uint16_t)port);
  if (inet_pton(AF_INET, host, &address.sin_addr) != 1) {
    fprintf(stderr, "mllp-ack-server: --host must be an IPv4 address\n");
    return 2;
  }
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 512) != 0) {
    perror("mllp-ack-server: bind");
    return 1;
  }
  socklen_t address_len = sizeof address;
  getsockname(listener, (struct sockaddr *)&address, &address_len);
  printf("listening %d\n", ntohs(address.sin_port));
  fflush(stdout);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  for (;;) {
    int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE) {
        usleep(10000); /* out of descriptors: wait for connections to end rather than spin */
        continue;
      }
      perror("mllp-ack-server: accept");
      return 1;
    }
    pthread_t thread;
    if (pthread_create(&thread, &attr, serve, (void *)(intptr_t)fd) != 0) close(fd);
  }
}
