// A sound as the clue (issue 36): the storyteller holds a button to record up to ten seconds
// (MediaRecorder; it stops by itself at ten, a countdown shows what is left), listens back, sends
// it with the clue or records again. The server keeps it as MP3, which every browser plays; the
// phones, the TV, the reveal, the album and the replay each show a button that plays it.
//
// Recording needs a secure context (HTTPS, or localhost): over plain http on the LAN browsers
// give no microphone, so the button is not offered and one line says why.
import { h } from "../dom.js";
import { t } from "../i18n.js";

export const MOST_SECONDS = 10;
// a hold shorter than this is a tap: the recording goes on until a second tap (or ten seconds)
const HOLD_MS = 450;
// how long after a hold's release a tap on "Record again" is the release's own (see `recorderPart`)
const RELEASE_TAP_MS = 700;

// The room of the page (/room/CODE, /room/CODE/board, /watch/CODE, /album/CODE/SECRET): the
// album and the replay are drawn from an album, which does not name its room.
export function pageRoom() {
  const found = /^\/(?:room|watch|album)\/([^/]+)/.exec(location.pathname);
  return found ? decodeURIComponent(found[1]) : "";
}

export function soundUrl(code, sound) {
  return `/api/rooms/${encodeURIComponent(code)}/sounds/${encodeURIComponent(sound)}`;
}

export function canRecord() {
  return Boolean(window.isSecureContext && navigator.mediaDevices?.getUserMedia && window.MediaRecorder);
}

// A button that plays a clue's sound, with its <audio> (kept across redraws by its key, so a
// sound playing goes on when the screen changes around it). ``label``: what the button says.
export function soundPlayer(sound, { code = pageRoom(), label = t("sound.play"), extra = "" } = {}) {
  if (!sound || !code) return null;
  const play = (event) => {
    const audio = event.currentTarget.parentElement.querySelector("audio");
    audio.currentTime = 0;
    audio.play().catch(() => {});
  };
  return h(
    "span.sound-clue",
    { "data-key": `sound-${sound}`, class: extra },
    h("button.small.sound-play", { type: "button", onclick: play }, h("span.sound-icon", { "aria-hidden": "true" }, "▶"), " ", label),
    h("audio", { "data-key": `audio-${sound}`, src: soundUrl(code, sound), preload: "auto" }),
  );
}

// ---------------------------------------------------------------- the TV: a first tap allows sound

// Browsers play no sound on a page nobody has touched: the TV asks for one tap, then plays each
// new clue's sound by itself; a tap plays it again.
const tv = { allowed: false, played: new Set() };

export function boardSound(code, sound) {
  if (!sound) return null;
  if (tv.allowed && !tv.played.has(sound)) {
    tv.played.add(sound);
    // (after the screen is shown: the <audio> is then in the page)
    queueMicrotask(() => document.querySelector(`audio[data-key="audio-${CSS.escape(sound)}"]`)?.play().catch(() => {}));
  }
  const play = (event) => {
    tv.allowed = true;
    tv.played.add(sound);
    const audio = event.currentTarget.parentElement.querySelector("audio");
    audio.currentTime = 0;
    audio.play().catch(() => {});
    event.currentTarget.textContent = t("sound.play_again");
  };
  return h(
    "span.sound-clue.board-sound",
    { "data-key": `sound-${sound}` },
    h("button.sound-play", { type: "button", onclick: play }, tv.allowed ? t("sound.play_again") : t("board.allow_sound")),
    h("audio", { "data-key": `audio-${sound}`, src: soundUrl(code, sound), preload: "auto" }),
  );
}

// ---------------------------------------------------------------- recording

// What is being recorded, outside the screen's state (a MediaRecorder is no state to draw from).
const live = { recorder: null, stream: null, timer: null, tick: null, started: 0, pressed: 0, released: 0 };

function newRecording(turn = "") {
  return { state: "idle", id: null, seconds: 0, url: null, left: MOST_SECONDS, message: "", turn };
}

// Forget a recording (sent with the clue, recorded again, or the room left).
export function dropRecording(ui) {
  if (ui.recorded?.url) URL.revokeObjectURL(ui.recorded.url);
  ui.recorded = newRecording(ui.recorded?.turn);
}

function stopLive() {
  clearTimeout(live.timer);
  clearInterval(live.tick);
  live.stream?.getTracks().forEach((track) => track.stop());
  live.stream = null;
}

async function start(v) {
  const { ui, draw } = v;
  if (live.recorder) return;
  dropRecording(ui);
  ui.recorded.state = "starting";
  draw();
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch {
    ui.recorded = { ...newRecording(ui.recorded.turn), state: "refused", message: t("sound.no_microphone") };
    draw();
    return;
  }
  const type = ["audio/webm;codecs=opus", "audio/mp4", "audio/ogg;codecs=opus"].find((kind) => MediaRecorder.isTypeSupported?.(kind));
  const recorder = new MediaRecorder(stream, type ? { mimeType: type } : {});
  const chunks = [];
  recorder.ondataavailable = (event) => event.data.size && chunks.push(event.data);
  recorder.onstop = () => {
    stopLive();
    live.recorder = null;
    send(v, new Blob(chunks, { type: recorder.mimeType || type || "" }));
  };
  Object.assign(live, { recorder, stream, started: Date.now() });
  recorder.start();
  ui.recorded.state = "recording";
  // it stops by itself at ten seconds; the countdown says what is left
  live.timer = setTimeout(() => stop(), MOST_SECONDS * 1000);
  live.tick = setInterval(() => {
    const left = Math.max(0, Math.ceil(MOST_SECONDS - (Date.now() - live.started) / 1000));
    if (left !== ui.recorded.left) {
      ui.recorded.left = left;
      draw();
    }
  }, 200);
  draw();
}

function stop() {
  if (live.recorder?.state === "recording") live.recorder.stop();
}

async function send(v, blob) {
  const { ui, draw, code, token } = v;
  const url = URL.createObjectURL(blob);
  ui.recorded = { ...newRecording(ui.recorded.turn), state: "sending", url };
  draw();
  try {
    const response = await fetch(`/api/rooms/${encodeURIComponent(code)}/sounds`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": blob.type || "application/octet-stream" },
      body: blob,
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw Object.assign(new Error(data.error?.message || ""), { code: data.error?.code || "offline" });
    if (ui.recorded.url !== url) return; // recorded again meanwhile
    const heard = await storedSound(code, token, data.sound);
    if (ui.recorded.url !== url) {
      if (heard) URL.revokeObjectURL(heard);
      return;
    }
    if (heard) {
      URL.revokeObjectURL(url);
      ui.recorded.url = heard;
    }
    Object.assign(ui.recorded, { state: "ready", id: data.sound, seconds: data.seconds });
  } catch (error) {
    if (ui.recorded.url !== url) return;
    const key = `error.${error.code}`;
    Object.assign(ui.recorded, { state: "refused", message: t(key) === key ? t("sound.not_sent") : t(key) });
  }
  draw();
}

// The sound as stored (MP3), to listen back to: the very sound the table will hear, and with its
// length, which a browser's own recording often does not say. Before the clue only its maker may
// fetch it (with the seat's token, which an <audio> cannot send): a blob URL. Null if it cannot be
// fetched (the recording itself is listened to then).
async function storedSound(code, token, sound) {
  try {
    const response = await fetch(soundUrl(code, sound), { headers: { Authorization: `Bearer ${token}` } });
    return response.ok ? URL.createObjectURL(await response.blob()) : null;
  } catch {
    return null;
  }
}

// The storyteller's recorder, in the clue form: nothing in a room without sound clues; over
// plain http one line saying why there is no recording; else the hold-to-record button, then
// the recording to listen back to, with "Record again".
export function recorderPart(v) {
  const { ui, draw } = v;
  if (ui.room?.settings?.sound_clues === false) return null;
  if (!canRecord()) return h("p.hint.record-off", {}, t("sound.needs_secure"));
  // a recording belongs to the turn it was made for (the clue may have gone on without it)
  const turn = `${ui.room?.games_started}:${ui.room?.game?.round}`;
  if (ui.recorded && ui.recorded.turn !== turn && !live.recorder) dropRecording(ui);
  ui.recorded ??= newRecording();
  ui.recorded.turn = turn;
  const rec = ui.recorded;
  const recording = rec.state === "recording" || rec.state === "starting";
  const press = (event) => {
    event.preventDefault();
    if (recording) return stop();
    live.pressed = Date.now();
    start(v);
    return undefined;
  };
  // a hold ends at the release; a tap leaves it recording until the next tap
  const release = () => {
    const held = live.pressed && Date.now() - live.pressed >= HOLD_MS;
    if (held) {
      stop();
      live.released = Date.now();
    }
    live.pressed = 0;
    if (!held) draw(); // (a tap: the button now says a tap stops it, not a release)
  };
  const button = h(
    "button.small.record",
    {
      type: "button",
      "data-key": "record",
      class: recording ? "recording" : "",
      "aria-pressed": recording ? "true" : "false",
      disabled: rec.state === "sending",
      onpointerdown: press,
      onpointerup: release,
      onpointercancel: release,
      // A phone follows a finger's release with a tap (a click) where the finger was: the
      // recording to listen back to and "Record again" take this button's place, and at the foot
      // of the screen "Record again" comes under the finger — that tap threw the sound away.
      ontouchend: (event) => event.preventDefault(),
      oncontextmenu: (event) => event.preventDefault(),
      onkeydown: (event) => (event.key === " " || event.key === "Enter") && !event.repeat && press(event),
      onkeyup: (event) => (event.key === " " || event.key === "Enter") && release(),
    },
    h("span.record-dot", { "aria-hidden": "true" }),
    " ",
    recordLabel(rec),
  );
  const again = () => {
    // (and should a browser send the release's tap all the same, it is not a tap on this)
    if (Date.now() - live.released < RELEASE_TAP_MS) return;
    dropRecording(ui);
    draw();
  };
  return h(
    "div.recorder",
    { "data-key": "recorder" },
    rec.state === "ready" || rec.state === "sending"
      ? h("div.recorded", {}, h("audio.listen-back", { "data-key": `mine-${rec.url}`, src: rec.url, controls: true }), h("button.small.record-again", { type: "button", "data-key": "record-again", onclick: again }, t("sound.record_again")))
      : button,
    h("span.hint.record-state", { "aria-live": "polite" }, recordState(rec)),
  );
}

function recordLabel(rec) {
  if (rec.state === "starting") return t("sound.starting");
  if (rec.state === "recording") {
    return live.pressed ? t("sound.recording", { seconds: rec.left }) : t("sound.recording_tapped", { seconds: rec.left });
  }
  return t("sound.hold_to_record", { seconds: MOST_SECONDS });
}

function recordState(rec) {
  if (rec.state === "sending") return t("sound.sending");
  if (rec.state === "ready") return t("sound.ready", { seconds: rec.seconds.toFixed(1) });
  if (rec.state === "refused") return rec.message;
  return "";
}
