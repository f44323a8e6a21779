#ifndef NAVD_GPS_H
#define NAVD_GPS_H

#include <stdbool.h>
#include <stdint.h>

/* What navd needs of one gpsd report, copied out of libgps's 24 KB gps_data_t so that Swift never touches it.
   Doubles are NaN when gpsd did not report the value. */
typedef struct navd_gps_report {
    int has_fix_data;          /* a TPV-style report (time/position/velocity) was read */
    int mode;                  /* 0 not seen, 1 no fix, 2 2D, 3 3D */
    double latitude;           /* degrees */
    double longitude;          /* degrees */
    double alt_msl;            /* metres */
    double eph;                /* 95% horizontal error estimate, metres */
    double track;              /* degrees true */
    double epd;                /* track error, degrees */
    double speed;              /* m/s */
    double eps;                /* speed error, m/s */
    int64_t time_sec;          /* fix time, UTC, 0 when unknown */
    int64_t time_nsec;
    int satellites_used;       /* -1 when unknown */
    int satellites_visible;    /* -1 when unknown */
    double hdop;
    int latlon_set;            /* gpsd set latitude/longitude in this report */
    int estimated;             /* the receiver dead-reckoned this fix (gpsd status DR) */
    char device[256];          /* device the report came from */
} navd_gps_report;

/* Opaque connection: a heap-allocated gps_data_t. */
typedef struct navd_gps_connection navd_gps_connection;

/* Connects to gpsd; returns NULL and sets *error_out (errno or a libgps error) on failure. */
navd_gps_connection *navd_gps_open(const char *host, const char *port, int *error_out);

/* Sends ?WATCH for JSON reports, of one device when device is not NULL or empty. 0 on success. */
int navd_gps_watch(navd_gps_connection *connection, const char *device);

/* Waits up to timeout_us for data and reads one message.
   Returns 1 when a message was read (report filled), 0 on timeout, -1 when the connection failed
   (gpsd stopped: libgps returns -1 with errno 0). */
int navd_gps_read(navd_gps_connection *connection, int timeout_us, navd_gps_report *report);

/* navd_gps_read, also copying gpsd's raw JSON report (NUL-terminated, cut at message_len - 1 bytes) into
   message, for the flight recorder. message may be NULL. */
int navd_gps_read_message(navd_gps_connection *connection, int timeout_us, navd_gps_report *report, char *message, int message_len);

void navd_gps_close(navd_gps_connection *connection);

/* Text for an error from navd_gps_open: libgps's own (negative) codes, such as "can't connect to host/port
   pair", or an errno. */
const char *navd_gps_error_string(int error);

#endif
