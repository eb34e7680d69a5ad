/*
 * mllp-load: closed-loop MLLP senders for the benchmarks (test/bench/scenarios/mllp.ts).
 *
 * N threads, one connection each: send one MLLP-framed 1 KB HL7 v2 ORU^R01 with a unique MSH-10, read until
 * 0x1C 0x0D, check that the reply is a framed ACK whose MSA-1 is AA and whose MSA-2 names the message sent, record
 * the latency, repeat. Written in C so that, on a 2-core machine, the senders take little CPU from what they measure.
 *
 *   mllp-load --port P [--host 127.0.0.1] [--connections 10] [--seconds 5] [--warmup 1] [--timeout-ms 5000]
 *             [--size 1024]
 *
 * Prints one JSON object on stdout: messages and latencies of the measured window (after the warm-up), errors of the
 * whole run by kind, and the CPU the generator itself used. Exit code 0 when it ran (errors are figures, not
 * failures), 2 for bad arguments.
 *
 * Every fault ends: a reply that does not come within --timeout-ms (SO_RCVTIMEO) is a timeout, a refused or dropped
 * connection is a connection error; either closes the connection and the thread connects again. Nothing waits past
 * the end of the run plus one timeout.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MLLP_START 0x0B
#define MLLP_END 0x1C
#define CR 0x0D
/* A reply larger than this is not an ACK: counted as a bad reply rather than buffered without end. */
#define MAX_REPLY 65536
/* MSH-10 is this long for every message, so every message has the same size. */
#define CONTROL_ID_LEN 20

struct options {
  const char *host;
  int port;
  int connections;
  double seconds;
  double warmup;
  int timeout_ms;
  int size;
};

/* What one thread counted; merged after the run. */
struct counts {
  long messages;      /* answered with AA inside the measured window */
  long warmup_messages;
  long bad_replies;   /* framed but not an ACK with MSA-1 AA for this message, or garbage */
  long timeouts;      /* no whole reply within the timeout */
  long connection_errors; /* refused, reset or closed by the other side */
  long reconnects;
  double *latencies;  /* milliseconds, measured window only */
  long latency_count;
  long latency_cap;
};

struct worker {
  pthread_t thread;
  int index;
  const struct options *options;
  struct sockaddr_in address;
  double measure_start;
  double measure_end;
  struct counts counts;
};

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
  }
}

static void record_latency(struct counts *c, double ms) {
  if (c->latency_count == c->latency_cap) {
    long cap = c->latency_cap == 0 ? 65536 : c->latency_cap * 2;
    double *grown = realloc(c->latencies, (size_t)cap * sizeof(double));
    if (grown == NULL) return; /* out of memory: the message still counts, its latency is dropped */
    c->latencies = grown;
    c->latency_cap = cap;
  }
  c->latencies[c->latency_count++] = ms;
}

/*
 * Builds the message: MSH, PID, OBR and OBX segments padded with an NTE segment to exactly `size` bytes (before
 * framing). Returns the offset of MSH-10 so each send only rewrites the control id.
 */
static size_t build_message(char *out, int size, size_t *control_offset) {
  const char *msh_head = "MSH|^~\\&|BENCH|CLINIC|LAB|HOSPITAL|20260101120000||ORU^R01^ORU_R01|";
  const char *rest =
      "|P|2.5.1||||||UNICODE UTF-8\r"
      "PID|1||PAT123456^^^HOSPITAL^MR||DOE^JANE^Q||19800101|F|||1 MAIN ST^^SPRINGFIELD^IL^62701||555-0100\r"
      "PV1|1|O|CLINIC^^^HOSPITAL||||1234^WELBY^MARCUS\r"
      "OBR|1|ORD0001|FIL0001|24331-1^Lipid panel^LN|||20260101113000|||||||||1234^WELBY^MARCUS||||||20260101120000|||F\r"
      "OBX|1|NM|2093-3^Cholesterol^LN||182|mg/dL|<200|N|||F|||20260101113000\r"
      "OBX|2|NM|2571-8^Triglyceride^LN||110|mg/dL|<150|N|||F|||20260101113000\r"
      "OBX|3|NM|2085-9^HDL Cholesterol^LN||55|mg/dL|>40|N|||F|||20260101113000\r"
      "NTE|1|L|";
  size_t head = strlen(msh_head);
  size_t fixed = head + CONTROL_ID_LEN + strlen(rest) + 1; /* + the final CR */
  size_t total = (size_t)size > fixed ? (size_t)size : fixed;
  size_t pos = 0;
  memcpy(out, msh_head, head);
  pos = head;
  *control_offset = pos;
  memset(out + pos, '0', CONTROL_ID_LEN);
  pos += CONTROL_ID_LEN;
  memcpy(out + pos, rest, strlen(rest));
  pos += strlen(rest);
  while (pos < total - 1) out[pos++] = 'x';
  out[pos++] = CR;
  return pos;
}

static int connect_to(const struct worker *w) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  struct timeval tv = {w->options->timeout_ms / 1000, (w->options->timeout_ms % 1000) * 1000};
  /* On Linux SO_SNDTIMEO also bounds connect(); SO_RCVTIMEO bounds the wait for each reply. */
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  int rc;
  do rc = connect(fd, (const struct sockaddr *)&w->address, sizeof w->address);
  while (rc == -1 && errno == EINTR);
  if (rc == -1) {
    close(fd);
    return -1;
  }
  return fd;
}

enum outcome { OK, TIMEOUT, CONNECTION_ERROR, BAD_REPLY };

/* Writes all of buf, across partial writes and EINTR. */
static enum outcome write_all(int fd, const char *buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = send(fd, buf + done, len - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += (size_t)n;
    } else if (n == -1 && errno == EINTR) {
      continue;
    } else if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return TIMEOUT;
    } else {
      return CONNECTION_ERROR;
    }
  }
  return OK;
}

/* Reads until a whole frame (ending 0x1C 0x0D) is in buf; *len is its length. */
static enum outcome read_frame(int fd, char *buf, size_t *len) {
  size_t have = 0;
  for (;;) {
    if (have == MAX_REPLY) return BAD_REPLY;
    ssize_t n = recv(fd, buf + have, MAX_REPLY - have, 0);
    if (n > 0) {
      size_t from = have > 0 ? have - 1 : 0;
      have += (size_t)n;
      if (buf[0] != MLLP_START) return BAD_REPLY; /* a reply must begin with the start block */
      for (size_t i = from; i + 1 < have; i++) {
        if ((unsigned char)buf[i] == MLLP_END && buf[i + 1] == CR) {
          /* Closed loop: one reply per message, so bytes after the frame are not ours to accept. */
          if (i + 2 != have) return BAD_REPLY;
          *len = have;
          return OK;
        }
      }
    } else if (n == 0) {
      return CONNECTION_ERROR;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return TIMEOUT;
    } else {
      return CONNECTION_ERROR;
    }
  }
}

/*
 * True when the framed reply is an HL7 ACK for `control_id`: an MSH segment (whose fourth byte names the field
 * separator) and an MSA segment with MSA-1 AA and MSA-2 equal to the control id sent.
 */
static int is_positive_ack(const char *frame, size_t len, const char *control_id) {
  const char *msg = frame + 1;
  size_t mlen = len - 3; /* without 0x0B and 0x1C 0x0D */
  if (mlen < 8 || memcmp(msg, "MSH", 3) != 0) return 0;
  char sep = msg[3];
  size_t id_len = strlen(control_id);
  size_t i = 0;
  while (i < mlen) {
    size_t end = i;
    while (end < mlen && msg[end] != '\r' && msg[end] != '\n') end++;
    const char *seg = msg + i;
    size_t seg_len = end - i;
    if (seg_len >= 4 && memcmp(seg, "MSA", 3) == 0 && seg[3] == sep) {
      /* MSA|AA|<id>, followed by the end of the segment or another field. */
      if (seg_len < 7 || seg[4] != 'A' || seg[5] != 'A' || seg[6] != sep) return 0;
      const char *id = seg + 7;
      size_t rest = seg_len - 7;
      if (rest < id_len || memcmp(id, control_id, id_len) != 0) return 0;
      return rest == id_len || id[id_len] == sep;
    }
    i = end + 1;
  }
  return 0;
}

static void *run_worker(void *arg) {
  struct worker *w = arg;
  struct counts *c = &w->counts;
  char message[1 + 1024 * 1024 + 2];
  size_t control_offset = 0;
  size_t body = build_message(message + 1, w->options->size, &control_offset);
  message[0] = MLLP_START;
  message[1 + body] = MLLP_END;
  message[2 + body] = CR;
  size_t framed = body + 3;
  char *reply = malloc(MAX_REPLY);
  if (reply == NULL) return NULL;
  char control_id[CONTROL_ID_LEN + 1];
  unsigned long long sequence = 0;
  int fd = -1;
  while (now_seconds() < w->measure_end) {
    if (fd < 0) {
      fd = connect_to(w);
      if (fd < 0) {
        c->connection_errors++;
        pause_ms(20); /* a refused port answers at once: do not spin */
        continue;
      }
      c->reconnects++;
    }
    /* Unique over threads and runs in one sitting: thread number and sequence, fixed width. */
    snprintf(control_id, sizeof control_id, "B%03u%016llu", (unsigned)w->index % 1000u, ++sequence % 10000000000000000ULL);
    memcpy(message + 1 + control_offset, control_id, CONTROL_ID_LEN);
    double started = now_seconds();
    enum outcome outcome = write_all(fd, message, framed);
    size_t reply_len = 0;
    if (outcome == OK) outcome = read_frame(fd, reply, &reply_len);
    if (outcome == OK && !is_positive_ack(reply, reply_len, control_id)) outcome = BAD_REPLY;
    double finished = now_seconds();
    if (outcome == OK) {
      if (started >= w->measure_start && finished <= w->measure_end) {
        c->messages++;
        record_latency(c, (finished - started) * 1000.0);
      } else if (started < w->measure_start) {
        c->warmup_messages++;
      }
      continue;
    }
    if (outcome == TIMEOUT) c->timeouts++;
    else if (outcome == CONNECTION_ERROR) c->connection_errors++;
    else c->bad_replies++;
    /* After any fault the connection's state is unknown (a late reply would pair with the next message): start over. */
    close(fd);
    fd = -1;
  }
  if (fd >= 0) close(fd);
  free(reply);
  return NULL;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double percentile(const double *sorted, long n, double p) {
  long rank = (long)((p / 100.0) * (double)n + 0.999999999) - 1;
  if (rank < 0) rank = 0;
  if (rank >= n) rank = n - 1;
  return sorted[rank];
}

static void usage(void) {
  fprintf(stderr,
          "usage: mllp-load --port P [--host 127.0.0.1] [--connections 10] [--seconds 5] [--warmup 1] "
          "[--timeout-ms 5000] [--size 1024]\n");
}

int main(int argc, char **argv) {
  struct options o = {"127.0.0.1", 0, 10, 5, 1, 5000, 1024};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v == NULL) {
      usage();
      return 2;
    }
    if (strcmp(a, "--host") == 0) o.host = v;
    else if (strcmp(a, "--port") == 0) o.port = atoi(v);
    else if (strcmp(a, "--connections") == 0) o.connections = atoi(v);
    else if (strcmp(a, "--seconds") == 0) o.seconds = atof(v);
    else if (strcmp(a, "--warmup") == 0) o.warmup = atof(v);
    else if (strcmp(a, "--timeout-ms") == 0) o.timeout_ms = atoi(v);
    else if (strcmp(a, "--size") == 0) o.size = atoi(v);
    else {
      usage();
      return 2;
    }
    i++;
  }
  if (o.port <= 0 || o.port > 65535 || o.connections < 1 || o.connections > 1000 || o.seconds <= 0 || o.warmup < 0 ||
      o.timeout_ms < 1 || o.size < 200 || o.size > 1024 * 1024) {
    usage();
    return 2;
  }
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_port = htons((uint16_t)o.port);
  if (inet_pton(AF_INET, o.host, &address.sin_addr) != 1) {
    fprintf(stderr, "mllp-load: --host must be an IPv4 address\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);

  struct worker *workers = calloc((size_t)o.connections, sizeof *workers);
  if (workers == NULL) return 1;
  double start = now_seconds();
  double measure_start = start + o.warmup;
  double measure_end = measure_start + o.seconds;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 4 * 1024 * 1024); /* the message buffer lives on the stack */
  int started = 0;
  for (int i = 0; i < o.connections; i++) {
    workers[i].index = i;
    workers[i].options = &o;
    workers[i].address = address;
    workers[i].measure_start = measure_start;
    workers[i].measure_end = measure_end;
    if (pthread_create(&workers[i].thread, &attr, run_worker, &workers[i]) != 0) break;
    started++;
  }
  for (int i = 0; i < started; i++) pthread_join(workers[i].thread, NULL);

  struct counts total = {0};
  for (int i = 0; i < started; i++) {
    struct counts *c = &workers[i].counts;
    total.messages += c->messages;
    total.warmup_messages += c->warmup_messages;
    total.bad_replies += c->bad_replies;
    total.timeouts += c->timeouts;
    total.connection_errors += c->connection_errors;
    total.reconnects += c->reconnects;
    total.latency_count += c->latency_count;
  }
  double *all = malloc((size_t)(total.latency_count > 0 ? total.latency_count : 1) * sizeof(double));
  long n = 0;
  for (int i = 0; i < started; i++) {
    struct counts *c = &workers[i].counts;
    if (all != NULL && c->latency_count > 0) memcpy(all + n, c->latencies, (size_t)c->latency_count * sizeof(double));
    n += c->latency_count;
    free(c->latencies);
  }
  if (all == NULL) n = 0;
  qsort(all, (size_t)n, sizeof(double), compare_doubles);
  struct rusage usage_self;
  getrusage(RUSAGE_SELF, &usage_self);
  double cpu = (double)usage_self.ru_utime.tv_sec + (double)usage_self.ru_utime.tv_usec / 1e6 +
               (double)usage_self.ru_stime.tv_sec + (double)usage_self.ru_stime.tv_usec / 1e6;
  long errors = total.bad_replies + total.timeouts + total.connection_errors;
  /* JSON has no NaN: no latency measured prints null. */
  char p50[32] = "null", p99[32] = "null", max[32] = "null";
  if (n > 0) {
    snprintf(p50, sizeof p50, "%.3f", percentile(all, n, 50));
    snprintf(p99, sizeof p99, "%.3f", percentile(all, n, 99));
    snprintf(max, sizeof max, "%.3f", all[n - 1]);
  }
  printf("{\"messages\":%ld,\"seconds\":%.3f,\"messagesPerSecond\":%.1f,\"p50Ms\":%s,\"p99Ms\":%s,\"maxMs\":%s,"
         "\"errors\":%ld,\"badReplies\":%ld,\"timeouts\":%ld,\"connectionErrors\":%ld,\"connections\":%d,"
         "\"connects\":%ld,\"warmupMessages\":%ld,\"messageBytes\":%d,\"generatorCpuSeconds\":%.3f}\n",
         total.messages, o.seconds, (double)total.messages / o.seconds, p50, p99, max, errors, total.bad_replies, total.timeouts, total.connection_errors, started,
         total.reconnects, total.warmup_messages, o.size, cpu);
  free(all);
  free(workers);
  return started == o.connections ? 0 : 1;
}
