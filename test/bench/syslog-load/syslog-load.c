/*
 * syslog-load: open-ended syslog senders for the audit repository benchmark (test/bench/scenarios/audits.ts).
 *
 * N threads, one TCP connection each: every thread sends --messages octet-counted frames (RFC 5425/6587:
 * "<byte length> <message>") of the message read from --file, as fast as the receiver reads them, then closes its
 * connection. Syslog has no acknowledgement, so what this measures is how fast the receiver takes messages off the
 * wire; the scenario measures how fast they are stored. Written in C so that, on a 2-core machine, the senders take
 * little CPU from what they measure.
 *
 *   syslog-load --port P --file F [--host 127.0.0.1] [--connections 10] [--messages 10000] [--timeout-ms 30000]
 *
 * Each message's "%08d" (if the file holds one) is replaced by a per-message counter, so messages differ.
 * Prints one JSON object on stdout: messages and bytes sent, seconds, errors, and the CPU this program used.
 * Exit code 0 when it ran (errors are figures), 2 for bad arguments or an unreadable file.
 *
 * Every fault ends: a write that cannot proceed within --timeout-ms (SO_SNDTIMEO) ends that thread's run with an
 * error, and a refused or reset connection is an error too.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Frames are packed into writes of about this size. */
#define BATCH_BYTES 65536
#define MAX_MESSAGE (1024 * 1024)

struct options {
  const char *host;
  int port;
  int connections;
  long messages;
  int timeout_ms;
  const char *file;
};

struct worker {
  pthread_t thread;
  int index;
  const struct options *options;
  struct sockaddr_in address;
  const char *message;
  size_t message_len;
  long sent;
  long long bytes;
  long errors;
};

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_all(int fd, const char *data, size_t len) {
  while (len > 0) {
    ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Writes one frame of message `counter` into `out`; returns its length. */
static size_t frame(const struct worker *w, long counter, char *out) {
  char body[MAX_MESSAGE + 16];
  const char *mark = strstr(w->message, "%08d");
  size_t len;
  if (mark == NULL) {
    memcpy(body, w->message, w->message_len);
    len = w->message_len;
  } else {
    size_t before = (size_t)(mark - w->message);
    memcpy(body, w->message, before);
    int digits = snprintf(body + before, 16, "%08ld", counter % 100000000L);
    size_t after = w->message_len - before - 4;
    memcpy(body + before + digits, mark + 4, after);
    len = before + (size_t)digits + after;
  }
  int head = sprintf(out, "%zu ", len);
  memcpy(out + head, body, len);
  return (size_t)head + len;
}

static void *run_worker(void *arg) {
  struct worker *w = arg;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    w->errors++;
    return NULL;
  }
  struct timeval tv = {.tv_sec = w->options->timeout_ms / 1000, .tv_usec = (w->options->timeout_ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, (struct sockaddr *)&w->address, sizeof w->address) != 0) {
    w->errors++;
    close(fd);
    return NULL;
  }
  char *batch = malloc(BATCH_BYTES + MAX_MESSAGE + 64);
  if (batch == NULL) {
    w->errors++;
    close(fd);
    return NULL;
  }
  size_t used = 0;
  long pending = 0;
  for (long i = 0; i < w->options->messages; i++) {
    used += frame(w, (long)w->index * w->options->messages + i, batch + used);
    pending++;
    if (used >= BATCH_BYTES || i + 1 == w->options->messages) {
      if (write_all(fd, batch, used) != 0) {
        w->errors++;
        break;
      }
      w->sent += pending;
      w->bytes += (long long)used;
      used = 0;
      pending = 0;
    }
  }
  free(batch);
  shutdown(fd, SHUT_WR);
  close(fd);
  return NULL;
}

static int parse_int(const char *text, long *out) {
  char *end;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value <= 0) return -1;
  *out = value;
  return 0;
}

int main(int argc, char **argv) {
  struct options o = {.host = "127.0.0.1", .port = 0, .connections = 10, .messages = 10000, .timeout_ms = 30000, .file = NULL};
  for (int i = 1; i + 1 < argc; i += 2) {
    long value = 0;
    if (strcmp(argv[i], "--host") == 0) o.host = argv[i + 1];
    else if (strcmp(argv[i], "--file") == 0) o.file = argv[i + 1];
    else if (parse_int(argv[i + 1], &value) != 0) {
      fprintf(stderr, "syslog-load: %s needs a positive whole number, not %s\n", argv[i], argv[i + 1]);
      return 2;
    } else if (strcmp(argv[i], "--port") == 0 && value < 65536) o.port = (int)value;
    else if (strcmp(argv[i], "--connections") == 0 && value <= 1000) o.connections = (int)value;
    else if (strcmp(argv[i], "--messages") == 0) o.messages = value;
    else if (strcmp(argv[i], "--timeout-ms") == 0 && value <= 3600000) o.timeout_ms = (int)value;
    else {
      fprintf(stderr, "syslog-load: unknown or out-of-range option %s\n", argv[i]);
      return 2;
    }
  }
  if (o.port == 0 || o.file == NULL) {
    fprintf(stderr, "usage: syslog-load --port P --file F [--host H] [--connections N] [--messages M] [--timeout-ms T]\n");
    return 2;
  }
  FILE *f = fopen(o.file, "rb");
  if (f == NULL) {
    fprintf(stderr, "syslog-load: cannot read %s: %s\n", o.file, strerror(errno));
    return 2;
  }
  char *message = malloc(MAX_MESSAGE + 1);
  size_t message_len = message == NULL ? 0 : fread(message, 1, MAX_MESSAGE + 1, f);
  fclose(f);
  if (message == NULL || message_len == 0 || message_len > MAX_MESSAGE) {
    fprintf(stderr, "syslog-load: %s must hold 1 byte to 1 MB\n", o.file);
    return 2;
  }
  message[message_len] = '\0';
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o.port)};
  if (inet_pton(AF_INET, o.host, &address.sin_addr) != 1) {
    fprintf(stderr, "syslog-load: --host must be an IPv4 address, not %s\n", o.host);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  struct worker *workers = calloc((size_t)o.connections, sizeof *workers);
  double start = now_seconds();
  for (int i = 0; i < o.connections; i++) {
    workers[i] = (struct worker){.index = i, .options = &o, .address = address, .message = message, .message_len = message_len};
    pthread_create(&workers[i].thread, NULL, run_worker, &workers[i]);
  }
  long sent = 0, errors = 0;
  long long bytes = 0;
  for (int i = 0; i < o.connections; i++) {
    pthread_join(workers[i].thread, NULL);
    sent += workers[i].sent;
    bytes += workers[i].bytes;
    errors += workers[i].errors;
  }
  double seconds = now_seconds() - start;
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  double cpu = (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
  printf("{\"messages\":%ld,\"bytes\":%lld,\"seconds\":%.4f,\"errors\":%ld,\"cpuSeconds\":%.4f}\n", sent, bytes, seconds, errors, cpu);
  free(workers);
  free(message);
  return 0;
}
