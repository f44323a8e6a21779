/* Runs navd's libgps shim (Sources/CGPSShim) against a real gpsd: connects, watches, and prints one line per
   report that carries a position, "fix LAT LON TIME_SEC MODE", until COUNT of them or TIMEOUT seconds.
   Built and run by Tests/SystemTests/NewerGpsdTests.swift inside a Debian 13 root (gpsd 3.25).
   usage: gpsd_shim_check HOST PORT COUNT TIMEOUT */
#include <gps.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "navd_gps.h"

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s HOST PORT COUNT TIMEOUT\n", argv[0]);
        return 2;
    }
    printf("api %d.%d\n", GPSD_API_MAJOR_VERSION, GPSD_API_MINOR_VERSION);
    int error = 0;
    navd_gps_connection *connection = NULL;
    time_t deadline = time(NULL) + atoi(argv[4]);
    /* gpsd may still be starting. */
    while (connection == NULL && time(NULL) < deadline) {
        connection = navd_gps_open(argv[1], argv[2], &error);
        if (connection == NULL) {
            struct timespec pause = {0, 100000000};
            nanosleep(&pause, NULL);
        }
    }
    if (connection == NULL) {
        fprintf(stderr, "cannot connect to gpsd: %d\n", error);
        return 1;
    }
    if (navd_gps_watch(connection, NULL) != 0) {
        fprintf(stderr, "WATCH failed\n");
        return 1;
    }
    int wanted = atoi(argv[3]), seen = 0;
    navd_gps_report report;
    while (seen < wanted && time(NULL) < deadline) {
        int result = navd_gps_read(connection, 200000, &report);
        if (result < 0) {
            fprintf(stderr, "gpsd closed the connection\n");
            break;
        }
        if (result == 1 && report.has_fix_data && report.latlon_set) {
            printf("fix %.7f %.7f %lld %d\n", report.latitude, report.longitude, (long long)report.time_sec, report.mode);
            fflush(stdout);
            seen++;
        }
    }
    navd_gps_close(connection);
    return seen == wanted ? 0 : 1;
}
