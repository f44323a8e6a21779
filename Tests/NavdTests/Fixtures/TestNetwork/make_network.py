#!/usr/bin/env python3
"""Writes navd's own small road network for the drives Helsinki has no roads for.

    make_network.py OUTDIR   writes OUTDIR/network.osm (OSM XML for the engines' own build tools) and
                             OUTDIR/network.json (named places and the geometry of the exits, the fork and the roundabout, for the tests)

Everything is laid out in metres on a local east/north plane and turned into latitude and longitude at the end,
so that the tests measure the same geometry the engines route on. The network (right-hand traffic):

  - Paatie ("Päätie"), a two-way primary road running west-east along y = 0;
  - a surface parking lot south of it (an area, not a road: the engines cannot route in it), its west end 45 m
    from Päätie, which it does not connect to; its only exit is a service road from its east gate to Sivukatu,
    a side street 150 m east of where the car stands;
  - Moottoritie, a one-way motorway north from an on-ramp at Päätie, with two exits on the right parting at 4 and
    3 degrees (Liittymä 1 and 2), then a Y fork at 3 degrees to each side (Itäväylä east, Moottoritie west);
  - Rinnakkaistie, a two-way road parallel to the motorway 300 m east, where both exits and Itäväylä end;
  - a roundabout at the motorway's north end with four arms (the motorway, Pohjoistie, Länsitie, Itätie; Itätie
    leads to Rinnakkaistie);
  - Koulutie, a two-way secondary road east from Sivukatu's south end, posted 60 km/h, then 40 km/h for 500 m
    past a school, then 60 km/h again (speed alerts);
  - Tunnelitie, its continuation east through Kalliotunneli (a 1500 m tunnel), then Satamatie south: a toll road
    (Maksutie) with a toll booth, then a ferry to Saarentie (road objects ahead);
  - Mutkatie, a winding road 12 km long well south of the rest and joined to none of it, a shape point every 5 m:
    a route along it has thousands of points, as a long route's answer has (navd makes those ready off its loop).

The script is deterministic: the same bytes each run. scripts/setup rebuilds the engines' data when it changes.
"""
import json
import math
import os
import sys

LAT0, LON0 = 60.40, 24.60          # the plane's origin (well outside the Helsinki extract)
EARTH_RADIUS = 6_371_008.8         # metres, the mean radius navd's geodesy uses


def to_geo(x, y):
    lat = LAT0 + math.degrees(y / EARTH_RADIUS)
    lon = LON0 + math.degrees(x / (EARTH_RADIUS * math.cos(math.radians(LAT0))))
    return round(lat, 7), round(lon, 7)


def along(start, bearing, distance):
    """The point `distance` metres from `start` at `bearing` degrees clockwise from north."""
    b = math.radians(bearing)
    return (start[0] + distance * math.sin(b), start[1] + distance * math.cos(b))


def bezier(p0, p1, p2, steps=12):
    """A smooth bend from p0 to p2 (p1 the control point), p0 excluded."""
    points = []
    for i in range(1, steps + 1):
        t = i / steps
        points.append(((1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * p1[0] + t * t * p2[0],
                       (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * p1[1] + t * t * p2[1]))
    return points


def densify(points, spacing=100.0):
    """Intermediate points every `spacing` metres along straight stretches (shape points, as mappers draw them)."""
    result = [points[0]]
    for a, b in zip(points, points[1:]):
        length = math.dist(a, b)
        n = int(length // spacing)
        for k in range(1, n + 1):
            if k * spacing < length - 1:
                t = k * spacing / length
                result.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
        result.append(b)
    return result


class Network:
    def __init__(self):
        self.nodes = {}      # rounded (x, y) -> id: ways that pass the same point share the node (a junction)
        self.ways = []
        self.node_tags = {}  # id -> tags (a toll booth)

    def node(self, point):
        key = (round(point[0], 2), round(point[1], 2))
        if key not in self.nodes:
            self.nodes[key] = len(self.nodes) + 1
        return self.nodes[key]

    def way(self, points, **tags):
        self.ways.append(([self.node(p) for p in points], tags))

    def osm_xml(self):
        lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<osm version="0.6" generator="navd make_network.py">']
        for (x, y), node_id in sorted(self.nodes.items(), key=lambda item: item[1]):
            lat, lon = to_geo(x, y)
            tags = self.node_tags.get(node_id)
            if not tags:
                lines.append(f'  <node id="{node_id}" version="1" timestamp="2026-01-01T00:00:00Z" lat="{lat}" lon="{lon}"/>')
                continue
            lines.append(f'  <node id="{node_id}" version="1" timestamp="2026-01-01T00:00:00Z" lat="{lat}" lon="{lon}">')
            lines += [f'    <tag k="{k}" v="{v}"/>' for k, v in sorted(tags.items())]
            lines.append('  </node>')
        for index, (refs, tags) in enumerate(self.ways, start=1):
            lines.append(f'  <way id="{index}" version="1" timestamp="2026-01-01T00:00:00Z">')
            lines += [f'    <nd ref="{ref}"/>' for ref in refs]
            for key, value in sorted(tags.items()):
                value = value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
                lines.append(f'    <tag k="{key.replace("_", ":")}" v="{value}"/>')
            lines.append('  </way>')
        lines.append('</osm>')
        return "\n".join(lines) + "\n"


def build():
    net = Network()
    places, facts = {}, {}

    # Päätie and the parking lot beside it.
    paatie_west, paatie_east = (-900.0, 0.0), (600.0, 0.0)
    sivukatu = (-150.0, 0.0)
    onramp_foot = (300.0, 0.0)
    net.way(densify([paatie_west, sivukatu, onramp_foot, paatie_east]), highway="primary", name="Päätie", maxspeed="50")
    service_join = (-150.0, -50.0)
    net.way(densify([sivukatu, service_join, (-150.0, -250.0)]), highway="residential", name="Sivukatu", maxspeed="30")
    gate = (-230.0, -50.0)
    net.way([gate, (-190.0, -50.0), service_join], highway="service")
    lot = [(-330.0, -25.0), (-230.0, -25.0), (-230.0, -75.0), (-330.0, -75.0), (-330.0, -25.0)]
    net.way(lot, amenity="parking", parking="surface", area="yes")
    parked = (-300.0, -45.0)
    places.update(parked=parked, lotGate=gate, serviceJoin=service_join, sivukatuAtPaatie=sivukatu, paatieWest=(-800.0, 0.0))
    facts["lotDistanceToPaatie"] = 45.0

    # The motorway: on-ramp from Päätie, then north with exits and a fork.
    motorway_start = (300.0, 200.0)
    gore1, gore2, fork = (300.0, 1500.0), (300.0, 2500.0), (300.0, 4000.0)
    net.way([onramp_foot, (300.0, 100.0), motorway_start], highway="motorway_link", oneway="yes", name="Moottoritie")
    net.way(densify([motorway_start, gore1, gore2, fork], 200.0), highway="motorway", oneway="yes", name="Moottoritie", maxspeed="100", ref="E99")

    rinnakkaistie = 600.0
    exits = []
    for number, (gore, angle, straight, join_y) in enumerate([(gore1, 4.0, 600.0, 2300.0), (gore2, 3.0, 700.0, 3500.0)], start=1):
        end_straight = along(gore, angle, straight)
        join = (rinnakkaistie, join_y)
        bend = bezier(end_straight, along(end_straight, angle, (join_y - end_straight[1]) * 0.9), join)
        ramp = densify([gore, end_straight], 100.0) + bend
        net.way(ramp, highway="motorway_link", oneway="yes", destination=f"Itäkylä {number}", **{"junction_ref": str(number)})
        exits.append(dict(number=number, gore=gore, angle=angle, straightLength=straight, join=join))
        places[f"exit{number}Join"] = join

    # The fork: Itäväylä bears 3 degrees right toward Rinnakkaistie, Moottoritie 3 degrees left to the roundabout.
    fork_angle = 3.0
    east_straight = along(fork, fork_angle, 700.0)
    east_join = (rinnakkaistie, 5000.0)
    itavayla = densify([fork, east_straight], 100.0) + bezier(east_straight, along(east_straight, fork_angle, 250.0), east_join)
    net.way(itavayla, highway="motorway", oneway="yes", name="Itäväylä", maxspeed="100")
    west_straight = along(fork, -fork_angle, 700.0)
    roundabout_centre, radius = (west_straight[0], 5950.0), 30.0
    roundabout_south = (roundabout_centre[0], roundabout_centre[1] - radius)
    net.way(densify([fork, west_straight, (west_straight[0], 5500.0)], 100.0), highway="motorway", oneway="yes", name="Moottoritie", maxspeed="100")
    net.way(densify([(west_straight[0], 5500.0), roundabout_south], 100.0), highway="trunk", oneway="yes", name="Moottoritie", maxspeed="60")

    # The roundabout: counter-clockwise (right-hand traffic), 16 nodes, four arms on the compass points.
    ring = [(roundabout_centre[0] + radius * math.cos(math.radians(a)), roundabout_centre[1] + radius * math.sin(math.radians(a)))
            for a in range(270, 270 + 360, 360 // 16)]
    net.way(ring + [ring[0]], highway="primary", junction="roundabout", name="Kiertoliittymä")
    east_arm, north_arm, west_arm = ring[4], ring[8], ring[12]
    itatie_end = (rinnakkaistie, roundabout_centre[1])
    net.way(densify([east_arm, itatie_end]), highway="primary", name="Itätie")
    net.way(densify([north_arm, (north_arm[0], 6600.0)]), highway="primary", name="Pohjoistie")
    net.way(densify([west_arm, (-300.0, west_arm[1])]), highway="primary", name="Länsitie")

    # Rinnakkaistie, two-way, from Päätie's east end to Itätie, through every junction.
    rinnakkaistie_nodes = [paatie_east] + [e["join"] for e in exits] + [east_join, itatie_end]
    net.way(densify(rinnakkaistie_nodes), highway="secondary", name="Rinnakkaistie", maxspeed="60")

    # Koulutie: 60 km/h, a 500 m school zone at 40 km/h, 60 km/h again; one road whose limit changes at shared nodes.
    koulutie_y, zone_start, zone_end = -250.0, 450.0, 950.0
    koulutie = [(-150.0, koulutie_y), (zone_start, koulutie_y), (zone_end, koulutie_y), (1400.0, koulutie_y)]
    for (a, b), limit in zip(zip(koulutie, koulutie[1:]), ["60", "40", "60"]):
        net.way(densify([a, b]), highway="secondary", name="Koulutie", maxspeed=limit)
    places.update(koulutieWest=(-100.0, koulutie_y), koulutieEast=(1350.0, koulutie_y))
    facts["schoolZone"] = dict(start=to_geo(zone_start, koulutie_y), end=to_geo(zone_end, koulutie_y), limit=40, around=60)

    # Tunnelitie through Kalliotunneli, Satamatie, the toll road Maksutie with its booth, the ferry.
    tunnel_west, tunnel_east, satama = (1700.0, koulutie_y), (3200.0, koulutie_y), (3300.0, koulutie_y)
    net.way(densify([koulutie[-1], tunnel_west]), highway="secondary", name="Tunnelitie", maxspeed="60")
    net.way(densify([tunnel_west, tunnel_east]), highway="secondary", name="Tunnelitie", maxspeed="60", tunnel="yes", layer="-1",
            **{"tunnel_name": "Kalliotunneli"})
    net.way(densify([tunnel_east, satama]), highway="secondary", name="Tunnelitie", maxspeed="60")
    toll_start, booth, toll_mid, toll_end = (3300.0, -450.0), (3300.0, -500.0), (3300.0, -700.0), (3300.0, -950.0)
    net.way(densify([satama, toll_start]), highway="secondary", name="Satamatie", maxspeed="60")
    net.way(densify([toll_start, booth, toll_mid, toll_end]), highway="secondary", name="Maksutie", maxspeed="60", toll="yes")
    net.node_tags[net.node(booth)] = {"barrier": "toll_booth"}
    pier, island = (3300.0, -1750.0), (3300.0, -1950.0)
    net.way(densify([toll_end, pier], 200.0), route="ferry", name="Saarilautta", motor_vehicle="yes", duration="00:10")
    net.way(densify([pier, island]), highway="secondary", name="Saarentie", maxspeed="40")
    places.update(tunnelitieWest=(1450.0, koulutie_y), satamatie=(satama[0], -350.0), saarentie=(3300.0, -1900.0))
    facts["tunnel"] = dict(name="Kalliotunneli", start=to_geo(*tunnel_west), end=to_geo(*tunnel_east), length=1500.0)
    facts["toll"] = dict(start=to_geo(*toll_start), end=to_geo(*toll_end), booth=to_geo(*booth))
    facts["ferry"] = dict(start=to_geo(*toll_end), end=to_geo(*pier))

    # Mutkatie: 12 km of gentle bends (15 m to each side every 250 m or so), a shape point every 5 m.
    def mutkatie(x):
        return (x, -4000.0 + 15.0 * math.sin(x / 40.0))
    net.way([mutkatie(-6000.0 + 5.0 * k) for k in range(2401)], highway="secondary", name="Mutkatie", maxspeed="80")
    places.update(mutkatieWest=mutkatie(-5900.0), mutkatieEast=mutkatie(5900.0))

    # Where the drives start and end (their true paths are built by the tests: the roads up to where the driver
    # goes wrong, then the engine's own route).
    places.update(
        motorwayBeforeExit1=(300.0, 1000.0), rinnakkaistie2400=(rinnakkaistie, 2400.0),
        motorwayBeforeExit2=(300.0, 2000.0), rinnakkaistie3700=(rinnakkaistie, 3700.0),
        motorwayBeforeFork=(300.0, 3500.0), rinnakkaistie5200=(rinnakkaistie, 5200.0),
        beforeRoundabout=(west_straight[0], 5400.0), pohjoistie6400=(north_arm[0], 6400.0))
    facts["exits"] = [dict(number=e["number"], gore=to_geo(*e["gore"]), angle=e["angle"], straightLength=e["straightLength"]) for e in exits]
    facts["fork"] = dict(point=to_geo(*fork), angle=fork_angle, straightLength=700.0)
    facts["roundabout"] = dict(centre=to_geo(*roundabout_centre), radius=radius)

    description = {
        "origin": [LAT0, LON0],
        "places": {name: to_geo(*p) for name, p in places.items()},
        "facts": facts,
    }
    return net.osm_xml(), json.dumps(description, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_network.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    xml, description = build()
    with open(os.path.join(out, "network.osm"), "w", encoding="utf-8") as f:
        f.write(xml)
    with open(os.path.join(out, "network.json"), "w", encoding="utf-8") as f:
        f.write(description)


if __name__ == "__main__":
    main()
