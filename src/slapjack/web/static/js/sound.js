// Sounds made with the Web Audio API (synthesised: no files), a mute switch
// remembered per browser, and vibration on phones that have it.
//
// Browsers let a page make sound only after a gesture (a key, a tap), so the
// AudioContext is made on the first one; until then every sound is silent.
// Each sound is one source node (an oscillator or a noise buffer), started once.

const MUTE_KEY = "slapjack.muted";

/** The sounds: [source, start Hz, end Hz, seconds, volume]. */
const SOUNDS = {
  flip: ["noise", 2400, 900, 0.06, 0.25],
  slap: ["noise", 900, 200, 0.12, 0.6],
  won: ["triangle", 523, 1046, 0.28, 0.3],
  wrong: ["sawtooth", 220, 110, 0.25, 0.2],
  over: ["sine", 392, 784, 0.6, 0.3],
};

export class Sound {
  constructor() {
    this.ctx = null;
    this.muted = localStorage.getItem(MUTE_KEY) === "1";
    this.noise = null;
    const wake = () => this.unlock();
    for (const type of ["pointerdown", "keydown"]) {
      document.addEventListener(type, wake, { capture: true, passive: true });
    }
  }

  /** Make (or resume) the audio context: call from a gesture. */
  unlock() {
    if (this.muted) return;
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      if (!this.ctx) {
        this.ctx = new Ctx();
        // The noise of the flip and slap sounds made now, in a task of its
        // own, not in the handler of the first card that sounds.
        const ctx = this.ctx;
        setTimeout(() => this.noiseBuffer(ctx), 0);
      }
      if (this.ctx.state === "suspended" && this.ctx.resume) this.ctx.resume();
    } catch {
      this.ctx = null;
    }
  }

  setMuted(muted) {
    this.muted = !!muted;
    localStorage.setItem(MUTE_KEY, this.muted ? "1" : "0");
    if (!this.muted) this.unlock();
  }

  /** Play ``name`` (flip, slap, won, wrong, over); nothing when muted or not yet allowed. */
  play(name) {
    const spec = SOUNDS[name];
    const ctx = this.ctx;
    if (!spec || this.muted || !ctx || ctx.state === "closed") return false;
    const [kind, f0, f1, secs, vol] = spec;
    const now = ctx.currentTime;
    const gain = ctx.createGain();
    gain.gain.setValueAtTime(vol, now);
    gain.gain.exponentialRampToValueAtTime(0.001, now + secs);
    let src;
    if (kind === "noise") {
      src = ctx.createBufferSource();
      src.buffer = this.noiseBuffer(ctx);
      const filter = ctx.createBiquadFilter();
      filter.type = "bandpass";
      filter.frequency.setValueAtTime(f0, now);
      filter.frequency.exponentialRampToValueAtTime(f1, now + secs);
      src.connect(filter);
      filter.connect(gain);
    } else {
      src = ctx.createOscillator();
      src.type = kind;
      src.frequency.setValueAtTime(f0, now);
      src.frequency.exponentialRampToValueAtTime(f1, now + secs);
      src.connect(gain);
    }
    gain.connect(ctx.destination);
    src.start(now);
    src.stop(now + secs + 0.02);
    return true;
  }

  noiseBuffer(ctx) {
    if (this.noise) return this.noise;
    const len = Math.floor(ctx.sampleRate * 0.3);
    const buf = ctx.createBuffer(1, len, ctx.sampleRate);
    const data = buf.getChannelData(0);
    let x = 12345;
    for (let i = 0; i < len; i++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      data[i] = (x / 0x3fffffff - 1) * (1 - i / len);
    }
    this.noise = buf;
    return buf;
  }
}

/** A short buzz on phones that can (a slap, a win); ignored elsewhere. */
export function vibrate(pattern) {
  try {
    if (navigator.vibrate) navigator.vibrate(pattern);
  } catch {
    // Not allowed (no gesture yet): no buzz.
  }
}
