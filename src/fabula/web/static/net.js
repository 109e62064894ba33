// Talking to the Fabula server: JSON over HTTP for rooms and seats, one WebSocket for play.
// The WebSocket reconnects by itself; a message not yet answered is sent again with the same id
// after a reconnect (the server makes a message with a known id only once).

import { language } from "./i18n.js";

export class ApiError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// ``body``: sent as JSON (a POST unless ``method`` says otherwise); ``token``: the seat's, for
// the routes that ask who is calling.
export async function api(path, body, { method, token } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = { method: method || (body === undefined ? "GET" : "POST"), headers };
  if (body !== undefined) init.body = JSON.stringify(body);
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError("offline", "");
  }
  const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = data.error || {};
    const refused = new ApiError(error.code || `http_${response.status}`, error.message || "");
    refused.details = error;
    throw refused;
  }
  return data;
}

// A request id for one tap of a button (create, join): the server answers the same id with the
// same seat, so a double tap or a retry after a lost answer never makes a second room or seat.
export function requestId() {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

// Two taps that would send the same message closer than this are one tap (a double tap), even
// when the first was answered in between (tests/e2e/ui.py: TAPS_APART_MS).
export const DOUBLE_TAP_MS = 500;

// Seat tokens live in this browser only: they are what takes a seat back after a reload.
const SEATS = "fabula.seats";

// Every seat this browser holds, by room code, oldest first.
export function savedSeats() {
  try {
    return JSON.parse(localStorage.getItem(SEATS) || "{}");
  } catch {
    return {};
  }
}

export function savedSeat(code) {
  return savedSeats()[code] || null;
}

export function saveSeat(code, seat) {
  const all = savedSeats();
  delete all[code]; // set again below: the newest seat comes last
  if (seat === null) delete all[code];
  else all[code] = seat;
  localStorage.setItem(SEATS, JSON.stringify(all));
}

// The seat token a browser held in a room whose host removed it: sent with a join there
// (`former_token`), so that the removed player is not seated again through the same link.
export function rememberRemoval(code, token) {
  if (token) localStorage.setItem(`fabula.removed.${code}`, token);
}

export function removedToken(code) {
  return localStorage.getItem(`fabula.removed.${code}`);
}

// The close code of a server that restarts or hands the room to another of its processes.
const CLOSE_RECONNECT = 1012;

// Errors after which a message goes again by itself, and how many times: a database that is away
// (store_failed) gets about three minutes (every 5 s) before the player is told.
const RETRIES = { rate_limited: 3, conflict: 3, store_failed: 40 };

export class Table {
  // events: onState(room), onChat(line, isHistory),
  // onStatus("connecting" | "online" | "offline" | "saving"),
  // onFatal(code, message) for a connection that cannot work (unknown room, bad token, removed),
  // onAudience(you) for an audience member's own standing (screens/audience.js).
  // ``audience``: {token, name} to join the room's audience (``token`` is then null).
  constructor(code, token, events, { audience = null } = {}) {
    this.code = code;
    this.token = token;
    this.audience = audience;
    this.events = events;
    this.pending = new Map(); // id → {message, resolve}
    this.saving = new Set(); // ids sent again because the server could not save them
    this.counter = 0;
    this.socket = null;
    this.attempt = 0;
    this.closed = false;
    this.room = null;
    this.ready = false; // the server has answered hello: other messages may go
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/${this.code}`);
    this.socket = socket;
    this.ready = false;
    this.events.onStatus?.("connecting");
    socket.addEventListener("open", () => {
      this.helloId = this.nextId();
      const joining = this.audience ? { audience: this.audience } : {};
      socket.send(JSON.stringify({ type: "hello", id: this.helloId, token: this.token, language, ...joining }));
    });
    socket.addEventListener("message", (event) => this.receive(JSON.parse(event.data)));
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.ready = false;
      if (this.closed) return;
      if (event.code === 4404 || event.code === 4403) {
        this.events.onFatal?.(event.code === 4404 ? "no_room" : "bad_origin", event.reason);
        return;
      }
      // 1012: the server is restarting, or the room moved to another of its processes: connect
      // again at once (within a quarter second, so a whole table does not come in one instant);
      // otherwise, or if that fails too, wait longer each time
      const attempt = this.attempt++;
      const wait =
        event.code === CLOSE_RECONNECT && attempt === 0 ? Math.random() * 250 : Math.min(10000, 500 * 2 ** attempt);
      if (wait >= 250) this.events.onStatus?.("offline");
      setTimeout(() => this.closed || this.open(), wait);
    });
  }

  close() {
    this.closed = true;
    this.socket?.close();
  }

  nextId() {
    this.counter += 1;
    return `${Date.now().toString(36)}-${this.counter}`;
  }

  receive(message) {
    switch (message.type) {
      case "welcome":
        this.attempt = 0;
        this.ready = true;
        this.member = message.member;
        this.events.onStatus?.("online");
        this.events.onChat?.(message.chat, true);
        if (message.audience) this.events.onAudience?.(message.audience);
        for (const { message: unanswered } of this.pending.values()) {
          this.socket.send(JSON.stringify(unanswered)); // same id: made at most once
        }
        break;
      case "state":
        this.room = message.room;
        this.events.onState?.(message.room);
        break;
      case "chat":
        this.events.onChat?.([message], false);
        break;
      case "audience":
        this.events.onAudience?.(message.you);
        break;
      case "error":
        if (message.code === "bad_token" || message.code === "no_room" || message.code === "removed") {
          this.closed = true;
          this.socket?.close();
          this.events.onFatal?.(message.code, message.message);
        } else if (this.audience && message.id === this.helloId) {
          // the audience refused this hello (a name it cannot take): the screen asks again
          this.closed = true;
          this.socket?.close();
          this.events.onFatal?.(message.code, message.message);
          break;
        }
        if (message.code in RETRIES && this.retry(message.id, message.code)) break;
        this.answer(message);
        break;
      default:
        this.answer(message);
    }
  }

  answer(message) {
    const waiting = message.id && this.pending.get(message.id);
    if (waiting) {
      this.pending.delete(message.id);
      waiting.resolve(message);
    }
    if (this.saving.delete(message.id) && this.saving.size === 0 && this.ready) this.events.onStatus?.("online");
  }

  // A message the server refused for now (too fast, a clash with another change, its database
  // away) goes again, with its id, a little later: it is made at most once, whenever it goes.
  // While the database is away the status says the moves are waiting to be saved.
  retry(id, code) {
    const waiting = id && this.pending.get(id);
    if (!waiting || (waiting.retries = (waiting.retries || 0) + 1) > RETRIES[code]) return false;
    if (code === "store_failed") {
      this.saving.add(id);
      this.events.onStatus?.("saving");
    }
    setTimeout(() => {
      if (this.pending.get(id) === waiting && this.ready) this.socket?.send(JSON.stringify(waiting.message));
    }, Math.min(5000, 1000 * waiting.retries));
    return true;
  }

  // Send a message; resolves with the server's answer (ack, error, legal, pong). The same message
  // while it is still unanswered (a double tap) is not sent again: both get the one answer.
  // `again`: the same message meant once more (each "Add a bot" tap), not a double tap.
  send(type, fields = {}, { again = false } = {}) {
    // (not a question: `legal` asked again is asked about a newer state)
    const body = type === "legal" || type === "ping" || again ? null : JSON.stringify({ type, ...fields });
    for (const waiting of this.pending.values()) {
      if (body !== null && waiting.body === body) return waiting.promise;
    }
    // nor a second tap that comes just after the first was answered (a fast home network)
    const now = Date.now();
    if (body !== null && this.last?.body === body && now - this.last.at < DOUBLE_TAP_MS) return this.last.promise;
    const message = { type, id: this.nextId(), ...fields };
    const waiting = { message, body };
    waiting.promise = new Promise((resolve) => {
      waiting.resolve = resolve;
      this.pending.set(message.id, waiting);
      if (this.ready && this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
    });
    if (body !== null) this.last = { body, at: now, promise: waiting.promise };
    return waiting.promise;
  }
}
