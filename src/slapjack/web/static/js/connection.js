// One WebSocket to a room (docs/protocol.md): hello, updates, ping/pong,
// reconnect with back-off; and the reaction clock that stamps when a card was
// actually painted.

export const PROTOCOL_VERSION = 1;

/**
 * A connection to /ws/{code}. Callbacks: onWelcome(msg), onUpdate(msg),
 * onError(msg), onStatus("connecting" | "open" | "closed" | "gone", detail).
 */
export class Connection {
  constructor(code, token, { lang = "en", onWelcome, onUpdate, onError, onStatus } = {}) {
    this.code = code;
    this.token = token || null;
    this.lang = lang;
    this.onWelcome = onWelcome || (() => {});
    this.onUpdate = onUpdate || (() => {});
    this.onError = onError || (() => {});
    this.onStatus = onStatus || (() => {});
    this.ws = null;
    this.closedByUs = false;
    this.retries = 0;
    this.lastSeq = null;
    this.timer = null;
  }

  get url() {
    if (this.movedTo) return this.movedTo; // scale-out: the node that runs the room
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws/${encodeURIComponent(this.code)}`;
  }

  /** A `moved` frame (docs/protocol.md): reconnect to the owner it names (none
   * named: this address again) after its retry_ms plus a random jitter of up
   * to as much again; the server then closes this socket with 4010. */
  followMoved(msg) {
    this.movedTo = msg.ws || null;
    this.moving = true;
    const base = Math.max(20, msg.retry_ms || 0);
    this.movedDelay = base * (1 + Math.random());
  }

  connect() {
    this.closedByUs = false;
    this.onStatus("connecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.retries = 0;
      this.lastSeq = null;
      this.send("hello", { token: this.token, lang: this.lang });
      this.onStatus("open");
    });
    ws.addEventListener("message", (ev) => this.receive(ev.data));
    ws.addEventListener("close", (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closedByUs) return;
      if (this.moving || ev.code === 4010) {
        this.moving = false;
        this.timer = setTimeout(() => this.connect(), this.movedDelay || 50);
        return;
      }
      // A node that is gone: back to the address the page came from (any node).
      if (this.movedTo && ev.code === 1006) this.movedTo = null;
      // 1008: policy (flood); 4000-4999: the server's own reasons (room closed,
      // bad token). Those are final; anything else is a network hiccup.
      if (ev.code === 1008 || (ev.code >= 4000 && ev.code < 5000)) {
        this.onStatus("gone", { code: ev.code, reason: ev.reason });
        return;
      }
      this.onStatus("closed", { code: ev.code });
      const delay = Math.min(5000, 300 * 2 ** this.retries);
      this.retries += 1;
      this.timer = setTimeout(() => this.connect(), delay);
    });
  }

  close() {
    this.closedByUs = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  send(type, fields = {}) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify({ v: PROTOCOL_VERSION, type, ...fields }));
    return true;
  }

  /** Send an action that needs the seat token. */
  act(type, fields = {}) {
    return this.send(type, { token: this.token, ...fields });
  }

  receive(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    switch (msg.type) {
      case "ping":
        // Answer at once: the server measures this socket's round trip.
        this.send("pong", { id: msg.id, client_time: performance.now() });
        break;
      case "welcome":
        this.onWelcome(msg);
        break;
      case "update":
        this.lastSeq = msg.seq;
        this.onUpdate(msg);
        break;
      case "error":
        this.onError(msg);
        break;
      case "moved":
        this.followMoved(msg);
        break;
      default:
        break;
    }
  }
}

/**
 * When was the current top card shown? ``cardDrawn(flipId, round)`` is called
 * right after the DOM shows a new card; the stamp is taken after the frame
 * that paints it (requestAnimationFrame, then a macrotask after the paint).
 *
 * A card counts as shown once per (flip id, reslap round), and once more each
 * time the game goes on after standing still with it: a game rebuilt after a
 * restart or a takeover (``timers.resume``, see docs/protocol.md) keeps its
 * card, flip id and round, but the server counts the card as shown again when
 * the countdown ends. Call ``cardDrawn(flipId, round, { held: true })`` for
 * every update while the game stands still: no slap then, and the first call
 * without ``held`` stamps the card afresh. (Without this the page kept its
 * stamp from before the server went away, and the outage and the countdown
 * were added to the next reaction: issue 12.)
 */
export class ReactionClock {
  constructor() {
    this.flipId = null;
    this.round = 0;
    this.held = false;
    this.shownAt = null;
    this.receivedAt = null;
    this.cue = 0; // one more for every stamp begun (a late frame of an old one is ignored)
  }

  /** A new card (or a new reslap round on it) is in the DOM now; ``held``: the
   * game stands still (it counts down to ``timers.resume``), the card cannot
   * be slapped yet. */
  cardDrawn(flipId, round = 0, { held = false } = {}) {
    if (held) {
      this.flipId = flipId;
      this.round = round;
      this.held = true;
      this.shownAt = null;
      this.receivedAt = null;
      this.cue += 1;
      return;
    }
    if (!this.held && this.flipId === flipId && this.round === round) return;
    this.flipId = flipId;
    this.round = round;
    this.held = false;
    this.shownAt = null;
    this.receivedAt = performance.now();
    const cue = ++this.cue;
    requestAnimationFrame(() =>
      setTimeout(() => {
        if (this.cue === cue && this.shownAt === null) this.shownAt = performance.now();
      }, 0),
    );
  }

  /**
   * The slap fields for an input event at ``inputAt`` (its timeStamp), or
   * null if no card is showing (or the game stands still). If the frame has
   * not been painted yet (a hidden tab), the card counts as shown when it
   * arrived.
   */
  slapFields(inputAt) {
    if (this.flipId === null || this.held) return null;
    const shownAt = this.shownAt ?? this.receivedAt;
    const reaction = Math.max(0, inputAt - shownAt);
    return {
      flip_id: this.flipId,
      reaction_ms: Math.round(reaction * 100) / 100,
      shown_at: shownAt,
      input_at: inputAt,
    };
  }
}
