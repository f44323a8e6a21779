#include "navd_gps.h"

#include <errno.h>
#include <gps.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>

/* navd_gps_open's error when libgps's socket cannot be given a descriptor below FD_SETSIZE. */
#define NAVD_GPS_NO_LOW_DESCRIPTOR (-1000)

/* Compile-time guard: API 11 (gpsd 3.22, Debian 12) is the oldest libgps with the three-argument gps_read(),
   fix.altMSL and fix.time as a timespec. Newer majors (14: gpsd 3.25, Debian 13) moved fields this file does not
   read (status went into fix.status in API 12); the systemd/Debian suite compiles and runs this file against
   Debian 13's libgps (Tests/SystemTests/NewerGpsdTests.swift). */
#if GPSD_API_MAJOR_VERSION < 11
#error "navd needs libgps API major version 11 or newer (gpsd 3.22, Debian 12); install a newer libgps-dev"
#endif

struct navd_gps_connection {
    struct gps_data_t data;
};

navd_gps_connection *navd_gps_open(const char *host, const char *port, int *error_out) {
    navd_gps_connection *connection = calloc(1, sizeof(navd_gps_connection));
    if (connection == NULL) {
        *error_out = ENOMEM;
        return NULL;
    }
    errno = 0;
    if (gps_open(host, port, &connection->data) != 0) {
        *error_out = errno != 0 ? errno : ECONNREFUSED;
        free(connection);
        return NULL;
    }
    /* libgps waits with select(2) (gps_waiting), whose fd_set holds only descriptors below FD_SETSIZE (1024); a
       higher one would overflow it. navd raises its open-file limit for its clients, so when every descriptor
       below 1024 is in use the socket gets a higher one (socket(2) takes the lowest free): refuse it, and the
       source retries until a client leaves. */
    if (connection->data.gps_fd >= FD_SETSIZE) {
        (void)gps_close(&connection->data);
        free(connection);
        *error_out = NAVD_GPS_NO_LOW_DESCRIPTOR;
        return NULL;
    }
    *error_out = 0;
    return connection;
}

int navd_gps_watch(navd_gps_connection *connection, const char *device) {
    unsigned int flags = WATCH_ENABLE | WATCH_JSON;
    if (device != NULL && device[0] != '\0') {
        flags |= WATCH_DEVICE;
        return gps_stream(&connection->data, flags, (void *)device);
    }
    return gps_stream(&connection->data, flags, NULL);
}

static double finite_or_nan(double value) { return isfinite(value) ? value : NAN; }

int navd_gps_read(navd_gps_connection *connection, int timeout_us, navd_gps_report *report) {
    return navd_gps_read_message(connection, timeout_us, report, NULL, 0);
}

int navd_gps_read_message(navd_gps_connection *connection, int timeout_us, navd_gps_report *report, char *message, int message_len) {
    struct gps_data_t *data = &connection->data;
    errno = 0;
    if (!gps_waiting(data, timeout_us)) {
        /* gps_waiting() also returns false when the socket failed; errno tells. */
        return (errno != 0 && errno != EINTR && errno != EAGAIN) ? -1 : 0;
    }
    errno = 0;
    data->set = 0;
    if (message != NULL && message_len > 0) {
        message[0] = '\0';
    }
    if (gps_read(data, message, message != NULL ? message_len : 0) == -1) {
        return -1;
    }
    memset(report, 0, sizeof(*report));
    /* TPV reports set MODE_SET; SKY and other reports leave the (persistent) fix untouched. */
    report->has_fix_data = (data->set & (MODE_SET | LATLON_SET)) != 0;
    report->mode = data->fix.mode;
    report->latlon_set = (data->set & LATLON_SET) != 0;
    /* STATUS_DR: the receiver's own dead reckoning (NMEA GGA quality 6, mode E); not STATUS_GNSSDR, a GNSS fix
       the receiver's sensors helped. gpsd sends "status" only when it is not a plain fix. */
    report->estimated = data->fix.status == STATUS_DR;
    report->latitude = finite_or_nan(data->fix.latitude);
    report->longitude = finite_or_nan(data->fix.longitude);
    report->alt_msl = finite_or_nan(data->fix.altMSL);
    report->eph = finite_or_nan(data->fix.eph);
    report->track = finite_or_nan(data->fix.track);
    report->epd = finite_or_nan(data->fix.epd);
    report->speed = finite_or_nan(data->fix.speed);
    report->eps = finite_or_nan(data->fix.eps);
    report->time_sec = (int64_t)data->fix.time.tv_sec;
    report->time_nsec = (int64_t)data->fix.time.tv_nsec;
    /* Satellite counts come from SKY reports and persist in gps_data_t between reports. */
    report->satellites_used = data->satellites_used > 0 ? data->satellites_used : -1;
    report->satellites_visible = data->satellites_visible > 0 ? data->satellites_visible : -1;
    report->hdop = finite_or_nan(data->dop.hdop);
    strncpy(report->device, data->dev.path, sizeof(report->device) - 1);
    return 1;
}

void navd_gps_close(navd_gps_connection *connection) {
    if (connection == NULL) return;
    (void)gps_stream(&connection->data, WATCH_DISABLE, NULL);
    gps_close(&connection->data);
    free(connection);
}

const char *navd_gps_error_string(int error) {
    if (error == NAVD_GPS_NO_LOW_DESCRIPTOR) {
        return "every descriptor below 1024 is in use (libgps waits with select(2), which takes no higher one); "
               "retrying until a client leaves";
    }
    return error < 0 ? gps_errstr(error) : strerror(error);
}
