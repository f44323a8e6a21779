"use strict";
// navd's reference dashboard. It speaks the socket protocol (docs/protocol.md) over WebSocket at /ws: hello
// first, then events; `route` for the route when it connects mid-trip; control commands with the token.
const $ = (id) => document.getElementById(id);
const svgNS = "http://www.w3.org/2000/svg";
const arrows = {
  left: "↰", right: "↱", "slight left": "↖", "slight right": "↗", "sharp left": "↰", "sharp right": "↱",
  straight: "↑", uturn: "↶",
};
const view = { route: null, routeId: null, units: "metric", control: false, car: null, stepIndex: 0, phase: "connecting", offBy: 0 };
let socket = null, retry = 500, nextId = 1, openedOnce = false, failuresWithToken = 0;

// Distances exactly as navd writes them for a screen (Guidance's DistanceFormatter.abbreviated, which the
// browser test checks this against): 10 m steps, then 50 m, then tenths of a km, whole km from 10 km; feet (or
// yards) below a tenth of a mile, then tenths of a mile, whole miles from 10; a whole amount written whole.
function distance(m, units = view.units) {
  if (m == null || !isFinite(m)) return "–";
  m = Math.max(0, m);
  const written = (amount) => {
    const tenths = Math.round(amount * 10);
    return tenths % 10 === 0 ? String(Math.round(amount)) : `${Math.trunc(tenths / 10)}.${tenths % 10}`;
  };
  if (units === "metric") {
    if (m < 95) return `${Math.max(10, Math.round(m / 10) * 10)} m`;
    if (m < 975) return `${Math.max(100, Math.round(m / 50) * 50)} m`;
    if (m < 9950) return `${written(Math.round(m / 100) / 10)} km`;
    return `${Math.round(m / 1000)} km`;
  }
  const miles = m / 1609.344;
  if (miles < 0.095) {
    return units === "imperial_yards" ? `${Math.max(10, Math.round(m / 0.9144 / 10) * 10)} yd` : `${Math.max(50, Math.round(m / 0.3048 / 50) * 50)} ft`;
  }
  if (miles < 9.95) return `${written(Math.max(0.1, Math.round(miles * 10) / 10))} mi`;
  return `${Math.round(miles)} mi`;
}

function setPhase(phase) {
  view.phase = phase;
  document.body.dataset.phase = phase;
  const texts = {
    off_route: `OFF ROUTE by ${Math.round(view.offBy)} m`,
    rerouting: `OFF ROUTE by ${Math.round(view.offBy)} m · rerouting…`,
    arrived: "You have arrived",
  };
  $("state").textContent = texts[phase] || "";
}

function showMessage(text) { $("message").textContent = text; }

// Prompts and announcements, newest first. A prompt keeps its route and step: when navd retracts a maneuver's
// prompt, every prompt of that route from that step on goes (an earlier "In 200 m" of the same maneuver too).
function addRecent(text, prompt) {
  const item = document.createElement("li");
  item.textContent = text;
  if (prompt) { item.dataset.utterance = prompt.utteranceId; item.dataset.route = prompt.routeId; item.dataset.step = prompt.stepIndex; }
  $("recent").prepend(item);
  while ($("recent").children.length > 6) $("recent").lastChild.remove();
}

function svg(tag, attributes) {
  const element = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  return element;
}

// The route from its own geometry ([lon, lat] pairs), its waypoints and the vehicle: no map tiles.
function drawOverview() {
  const overview = $("overview");
  overview.replaceChildren();
  const coordinates = view.route ? view.route.geometry : [];
  if (!coordinates || coordinates.length < 2) return;
  const points = coordinates.concat(view.car ? [[view.car.lon, view.car.lat]] : []);
  const lons = points.map((c) => c[0]), lats = points.map((c) => c[1]);
  const minX = Math.min(...lons), maxX = Math.max(...lons), minY = Math.min(...lats), maxY = Math.max(...lats);
  const squeeze = Math.cos(((minY + maxY) / 2) * Math.PI / 180);
  const scale = Math.min(380 / (((maxX - minX) * squeeze) || 1e-6), 280 / ((maxY - minY) || 1e-6));
  const xy = (lon, lat) => [(10 + (lon - minX) * squeeze * scale).toFixed(1), (290 - (lat - minY) * scale).toFixed(1)];
  overview.append(svg("polyline", { class: "route", points: coordinates.map((c) => xy(c[0], c[1]).join(",")).join(" "), "data-points": coordinates.length }));
  for (const waypoint of (view.route.waypoints || []).slice(1)) {
    const [x, y] = xy(waypoint.lon, waypoint.lat);
    overview.append(svg("rect", { class: "waypoint", x: x - 7, y: y - 7, width: 14, height: 14 }));
  }
  if (view.car) {
    const [x, y] = xy(view.car.lon, view.car.lat);
    overview.append(svg("circle", { class: "car", cx: x, cy: y, r: 9 }));
  }
}

function nextBanner(stepIndex) {
  const step = view.route && view.route.steps && view.route.steps[stepIndex + 1];
  const banner = step && step.visualInstructions && step.visualInstructions[0];
  return banner ? banner.primary.text : "";
}

function tripState(s) {
  if (s.state !== "navigating") {
    if (view.phase !== "arrived") {
      setPhase("idle");
      $("arrow").textContent = "·";
      $("distance").textContent = "–";
      $("road").textContent = s.roadName || "no trip";
      $("then").textContent = "";
    }
    showSpeed(s);
    return;
  }
  if (s.routeId && s.routeId !== view.routeId && !view.pendingRoute) requestRoute();
  view.stepIndex = s.stepIndex;
  const banner = s.visualInstruction && s.visualInstruction.primary;
  $("arrow").textContent = banner ? (banner.maneuverType === "arrive" ? "⚑" : arrows[banner.maneuverModifier] || "↑") : "↑";
  $("distance").textContent = distance(s.progress && s.progress.distanceToNextManeuver);
  $("road").textContent = banner ? banner.text : (s.roadName || "");
  const lanes = s.visualInstruction && s.visualInstruction.sub ? s.visualInstruction.sub.lanes : [];
  $("lanes").textContent = (lanes || []).map((lane) => (lane.active ? "▲" : "△")).join(" ");
  const then = nextBanner(s.stepIndex);
  $("then").textContent = then ? `then ${then}` : "";
  $("left").textContent = `${distance(s.progress && s.progress.distanceRemaining)} left`;
  const eta = s.arrival && s.arrival.time;
  $("eta").textContent = eta ? `arrive ${new Date(eta).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" })}` : "";
  const off = s.deviation && s.deviation.kind === "off_route";
  if (off) {
    view.offBy = s.deviation.distance;
    if (view.phase !== "rerouting") setPhase("off_route");
    else setPhase("rerouting");
  } else if (view.phase !== "navigating") {
    setPhase("navigating");
  }
  showSpeed(s);
  // Off the route, the fix itself: the snapped position would put the vehicle back on the road it left.
  view.car = off ? s.rawLocation : (s.snappedLocation || s.rawLocation);
  drawOverview();
}

function showSpeed(s) {
  const alert = s.speedAlert;
  const metresPerSecond = s.rawLocation && s.rawLocation.speed;
  if (alert) $("current").textContent = `${Math.round(alert.speed)} ${alert.unit}`;
  else if (metresPerSecond != null) $("current").textContent = view.units === "metric" ? `${Math.round(metresPerSecond * 3.6)} km/h` : `${Math.round(metresPerSecond * 2.23694)} mph`;
  $("limit").textContent = s.speedLimit ? `limit ${s.speedLimit.value} ${s.speedLimit.unit}` : "";
  const level = alert ? alert.level : "none";
  $("alert").className = level;
  $("alert").textContent = level === "none" ? "" : level === "major" ? "FAR OVER THE LIMIT" : "over the limit";
}

function requestRoute() {
  view.pendingRoute = true;
  send("route");
}

function hello(m) {
  view.control = m.control;
  $("connection").textContent = `navd ${m.navd}`;
  $("rights").textContent = m.control ? "control" : "read only";
  $("control").hidden = !m.control;
  $("unlock").hidden = m.control;
  $("gnss").textContent = `GNSS ${m.state.gnss.status}`;
  if (m.state.voice) { view.units = m.state.voice.units; $("voice-mode").value = m.state.voice.mode; }
  view.route = null; view.routeId = null; view.pendingRoute = false;
  if (m.state.phase === "idle" || m.state.phase === "waiting_for_fix" || m.state.phase === "calculating") setPhase("idle");
  if (m.state.routeId) requestRoute();
  if (m.state.tripState) tripState(m.state.tripState);
  drawOverview();
}

function reply(m) {
  switch (m.command) {
    case "route":
      view.pendingRoute = false;
      if (m.result.route) { view.route = m.result.route; view.routeId = m.result.routeId; }
      drawOverview();
      break;
    case "navigate": showMessage("calculating the route…"); break;
    case "cancel": showMessage(m.result.cancelledTrip ? "trip cancelled" : "no trip to cancel"); break;
    case "repeat": showMessage(m.result.text); break;
    case "voice": $("voice-mode").value = m.result.mode; showMessage(`voice: ${m.result.mode}`); break;
  }
}

function handle(m) {
  switch (m.type) {
    case "hello": hello(m); break;
    case "reply": reply(m); break;
    case "error": showMessage(`${m.code}: ${m.message}`); if (m.id && String(m.id).startsWith("route-")) view.pendingRoute = false; break;
    case "trip_state": tripState(m); break;
    case "route":
      view.route = m.route; view.routeId = m.routeId; view.pendingRoute = false;
      if (view.phase === "off_route" || view.phase === "rerouting" || view.phase === "arrived" || view.phase === "idle") setPhase("navigating");
      drawOverview();
      break;
    case "deviation":
      if (m.offRoute) { view.offBy = m.distance; if (view.phase !== "rerouting") setPhase("off_route"); }
      else if (view.phase === "off_route" || view.phase === "rerouting") setPhase("navigating");
      break;
    case "route_calculation":
      if (m.purpose !== "reroute") break;
      if (m.status === "in_progress" && (view.phase === "off_route" || view.phase === "rerouting")) setPhase("rerouting");
      if ((m.status === "failed" || m.status === "cancelled") && view.phase === "rerouting") setPhase("off_route");
      break;
    case "instruction":
      if (m.kind === "spoken") addRecent(m.instruction.text, { utteranceId: m.instruction.utteranceId, routeId: m.routeId, stepIndex: m.stepIndex });
      break;
    case "instruction_retracted": {
      const from = Math.min(...m.instructions.map((item) => item.stepIndex));
      for (const li of $("recent").querySelectorAll("li")) {
        if (li.dataset.route === m.routeId && Number(li.dataset.step) >= from) li.remove();
      }
      if (m.instructions.some((item) => item.kind === "visual" && item.stepIndex === view.stepIndex)) {
        $("road").textContent = ""; $("lanes").textContent = ""; $("then").textContent = "";
      }
      break;
    }
    case "arrived":
      setPhase("arrived");
      $("arrow").textContent = "⚑"; $("distance").textContent = "arrived"; $("then").textContent = ""; $("left").textContent = "";
      $("eta").textContent = `${distance(m.distanceTravelled)} in ${Math.round(m.duration / 60)} min`;
      break;
    case "gnss": $("gnss").textContent = `GNSS ${m.status}`; break;
    case "voice": view.units = m.units; $("voice-mode").value = m.mode; break;
    case "announcement": addRecent(m.text); break;
  }
}

function send(command, fields) {
  if (!socket || socket.readyState !== WebSocket.OPEN) { showMessage("not connected to navd"); return; }
  socket.send(JSON.stringify({ type: command, id: `${command}-${nextId++}`, ...fields }));
}

// The token comes once in the address (#token=…), is kept for this tab only and taken out of the address.
function token() {
  const match = location.hash.match(/token=([^&]+)/);
  if (match) {
    sessionStorage.setItem("navd-token", decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname);
  }
  return sessionStorage.getItem("navd-token");
}

function connect() {
  const secret = token();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = secret ? new WebSocket(`${scheme}://${location.host}/ws`, [`navd-token.${secret}`]) : new WebSocket(`${scheme}://${location.host}/ws`);
  let opened = false;
  socket.onopen = () => { opened = true; openedOnce = true; retry = 500; failuresWithToken = 0; };
  socket.onmessage = (event) => handle(JSON.parse(event.data));
  socket.onclose = () => {
    $("connection").textContent = "navd: reconnecting…";
    // A token navd refuses (401) fails the handshake every time: after three, carry on read only.
    if (!opened && secret && ++failuresWithToken >= 3) {
      sessionStorage.removeItem("navd-token");
      failuresWithToken = 0;
      showMessage("the control token was refused: read only");
    }
    setTimeout(connect, retry);
    retry = Math.min(5000, retry * 2);
  };
}

function navigateTo(lat, lon) { send("navigate", { waypoints: [{ lat, lon }] }); }

$("go-place").onclick = () => {
  const choice = $("places").selectedOptions[0];
  if (choice) navigateTo(Number(choice.dataset.lat), Number(choice.dataset.lon));
};
$("go-coordinates").onclick = () => {
  const parts = $("coordinates").value.split(",").map((part) => Number(part.trim()));
  if (parts.length !== 2 || parts.some((n) => !isFinite(n)) || Math.abs(parts[0]) > 90 || Math.abs(parts[1]) > 180) {
    showMessage("enter the destination as lat, lon in degrees (60.1699, 24.9384)");
    return;
  }
  navigateTo(parts[0], parts[1]);
};
$("cancel").onclick = () => send("cancel");
$("repeat").onclick = () => send("repeat");
$("voice-mode").onchange = () => send("voice", { mode: $("voice-mode").value });
$("use-token").onclick = () => {
  sessionStorage.setItem("navd-token", $("token").value.trim());
  $("token").value = "";
  if (socket) socket.close();
};
// The theme follows the system's (a head unit switches it at dusk) until the driver picks one, which is kept.
function applyTheme(night) {
  document.body.classList.toggle("night", night);
  document.body.classList.toggle("day", !night);
  $("theme").textContent = night ? "day" : "night";
}
const systemNight = window.matchMedia("(prefers-color-scheme: dark)");
const chosenTheme = () => localStorage.getItem("navd-theme");
applyTheme(chosenTheme() ? chosenTheme() === "night" : systemNight.matches);
systemNight.addEventListener("change", (event) => { if (!chosenTheme()) applyTheme(event.matches); });
$("theme").onclick = () => {
  const night = !document.body.classList.contains("night");
  localStorage.setItem("navd-theme", night ? "night" : "day");
  applyTheme(night);
};

fetch("/destinations.json").then((answer) => answer.json()).then((list) => {
  for (const place of list.destinations) {
    const option = document.createElement("option");
    option.textContent = place.name;
    option.dataset.lat = place.lat;
    option.dataset.lon = place.lon;
    $("places").append(option);
  }
});
connect();
