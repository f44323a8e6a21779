"use strict";
// navd's reference dashboard: the socket protocol (docs/protocol.md) over WebSocket at /ws, hello first.
const $ = (id) => document.getElementById(id);
const arrows = { left: "↰", right: "↱", "slight left": "↖", "slight right": "↗", "sharp left": "↰", "sharp right": "↱", straight: "↑", uturn: "↶" };
let route = null, units = "metric", socket = null, retry = 500;

function distance(m) {
  if (m == null || !isFinite(m)) return "–";
  if (units === "metric") return m < 95 ? `${Math.max(10, Math.round(m / 10) * 10)} m` : m < 975 ? `${Math.round(m / 50) * 50} m` : `${(m / 1000).toFixed(m < 9950 ? 1 : 0)} km`;
  const miles = m / 1609.344;
  if (miles < 0.095) return units === "imperial_yards" ? `${Math.round(m / 0.9144 / 10) * 10} yd` : `${Math.max(50, Math.round(m / 0.3048 / 50) * 50)} ft`;
  return `${miles.toFixed(miles < 9.95 ? 1 : 0)} mi`;
}
function note(text) { const li = document.createElement("li"); li.textContent = text; $("recent").prepend(li); while ($("recent").children.length > 5) $("recent").lastChild.remove(); }
function drawOverview(car) {
  const svg = $("overview");
  svg.replaceChildren();
  if (!route || !route.geometry) return;
  const coords = route.geometry.coordinates || route.geometry;
  const lons = coords.map((c) => c[0]), lats = coords.map((c) => c[1]);
  const minX = Math.min(...lons), maxX = Math.max(...lons), minY = Math.min(...lats), maxY = Math.max(...lats);
  const scale = Math.min(380 / ((maxX - minX) || 1e-6), 280 / ((maxY - minY) || 1e-6));
  const xy = (lon, lat) => [10 + (lon - minX) * scale, 290 - (lat - minY) * scale];
  const path = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
  path.setAttribute("class", "route");
  path.setAttribute("points", coords.map((c) => xy(c[0], c[1]).join(",")).join(" "));
  svg.append(path);
  if (car) {
    const [x, y] = xy(car.lon, car.lat);
    const dot = document.createElementNS("http://www.w3.org/2000/svg", "circle");
    dot.setAttribute("class", "car"); dot.setAttribute("cx", x); dot.setAttribute("cy", y); dot.setAttribute("r", 7);
    svg.append(dot);
  }
}
function tripState(s) {
  if (s.state !== "navigating") { if (s.state === "idle") $("road").textContent = s.roadName || "no trip"; return; }
  const banner = s.visualInstruction && s.visualInstruction.primary;
  $("arrow").textContent = banner ? (arrows[banner.maneuverModifier] || (banner.maneuverType === "arrive" ? "⚑" : "↑")) : "↑";
  $("distance").textContent = distance(s.progress && s.progress.distanceToNextManeuver);
  $("road").textContent = banner ? banner.text : (s.roadName || "");
  $("lanes").textContent = banner && banner.lanes ? banner.lanes.map((l) => (l.active ? "▲" : "△")).join(" ") : "";
  $("then").textContent = s.visualInstruction && s.visualInstruction.secondary ? s.visualInstruction.secondary.text : "";
  $("left").textContent = `${distance(s.progress && s.progress.distanceRemaining)} left`;
  const eta = s.arrival && s.arrival.time; $("eta").textContent = eta ? `ETA ${eta.slice(11, 16)}` : "";
  const speed = (s.rawLocation && s.rawLocation.speed) || 0;
  $("current").textContent = units === "metric" ? `${Math.round(speed * 3.6)} km/h` : `${Math.round(speed * 2.23694)} mph`;
  $("limit").textContent = s.speedLimit ? `limit ${s.speedLimit.value} ${s.speedLimit.unit}` : "";
  const alert = s.speedAlert ? s.speedAlert.level : "none";
  $("alert").className = alert; $("alert").textContent = alert === "none" ? "" : alert === "major" ? "OVER THE LIMIT" : "over the limit";
  $("state").textContent = s.deviation && s.deviation.kind === "off_route" ? `OFF ROUTE by ${Math.round(s.deviation.distance)} m` : "";
  drawOverview(s.snappedLocation || s.rawLocation);
}
function handle(m) {
  switch (m.type) {
    case "hello": $("connection").textContent = `navd ${m.navd}${m.control ? " (control)" : ""}`; $("gnss").textContent = `GNSS ${m.state.gnss.status}`; if (m.state.voice) units = m.state.voice.units; if (m.state.tripState) tripState(m.state.tripState); break;
    case "trip_state": tripState(m); break;
    case "route": route = m.route; $("state").textContent = ""; note(`route (${m.reason}): ${distance(m.distance)}`); drawOverview(); break;
    case "deviation": if (m.offRoute) $("state").textContent = `OFF ROUTE by ${Math.round(m.distance)} m`; else $("state").textContent = ""; break;
    case "route_calculation": if (m.purpose === "reroute" && m.status === "started") $("state").textContent = "rerouting…"; break;
    case "instruction_retracted": note(`${m.instructions.length} instruction(s) retracted (${m.reason})`); break;
    case "arrived": $("arrow").textContent = "⚑"; $("distance").textContent = "arrived"; $("state").textContent = ""; note("arrived"); break;
    case "gnss": $("gnss").textContent = `GNSS ${m.status}`; break;
    case "voice": units = m.units; break;
    case "announcement": note(m.text); break;
  }
}
function connect() {
  socket = new WebSocket(`ws://${location.host}/ws`);
  socket.onopen = () => { retry = 500; };
  socket.onmessage = (e) => handle(JSON.parse(e.data));
  socket.onclose = () => { $("connection").textContent = "navd: reconnecting…"; setTimeout(connect, retry); retry = Math.min(5000, retry * 2); };
}
$("theme").onclick = () => { const night = document.body.classList.toggle("night"); document.body.classList.toggle("day", !night); $("theme").textContent = night ? "day" : "night"; };
connect();
