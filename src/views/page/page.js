// ChaCha8 as rand_chacha's ChaCha8Rng, seeded as rand_core's seed_from_u64.
const MASK64 = (1n << 64n) - 1n;
function seedKey(seed) {
  let state = BigInt.asUintN(64, BigInt(seed));
  const key = new Uint32Array(8);
  for (let i = 0; i < 8; i++) {
    state = (state * 0x5851f42d4c957f2dn + 0xa17654e46fbe17f3n) & MASK64;
    const x = Number((((state >> 18n) ^ state) >> 27n) & 0xffffffffn);
    const rot = Number(state >> 59n);
    key[i] = ((x >>> rot) | (x << ((32 - rot) & 31))) >>> 0;
  }
  return key;
}
const rotl = (v, n) => ((v << n) | (v >>> (32 - n))) >>> 0;
function quarter(x, a, b, c, d) {
  x[a] += x[b]; x[d] = rotl(x[d] ^ x[a], 16);
  x[c] += x[d]; x[b] = rotl(x[b] ^ x[c], 12);
  x[a] += x[b]; x[d] = rotl(x[d] ^ x[a], 8);
  x[c] += x[d]; x[b] = rotl(x[b] ^ x[c], 7);
}
class ChaCha8 {
  constructor(seed) {
    this.input = new Uint32Array(16);
    this.input.set([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);
    this.input.set(seedKey(seed), 4);
    this.block = new Uint32Array(16);
    this.work = new Uint32Array(16);
    this.counter = 0;
    this.pos = 16;
  }
  refill() {
    const s = this.input, x = this.work;
    s[12] = this.counter >>> 0;
    s[13] = Math.floor(this.counter / 4294967296) >>> 0;
    x.set(s);
    for (let i = 0; i < 4; i++) {
      quarter(x, 0, 4, 8, 12); quarter(x, 1, 5, 9, 13); quarter(x, 2, 6, 10, 14); quarter(x, 3, 7, 11, 15);
      quarter(x, 0, 5, 10, 15); quarter(x, 1, 6, 11, 12); quarter(x, 2, 7, 8, 13); quarter(x, 3, 4, 9, 14);
    }
    for (let i = 0; i < 16; i++) this.block[i] = x[i] + s[i];
    this.counter += 1;
    this.pos = 0;
  }
  nextU32() {
    if (this.pos === 16) this.refill();
    return this.block[this.pos++];
  }
  nextF32() { return (this.nextU32() >>> 8) * 5.9604644775390625e-8; }
  nextBool() { return this.nextU32() >= 0x80000000; }
}

// ---- The automaton: the pruned netlist over 32 cells a word ----

/** Crc-32 (IEEE) of a byte array, as crc32fast computes it. */
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The grid: one byte per (channel, cell), and its step through the circuit. */
class Automaton {
  constructor(model, height, width) {
    this.m = model;
    this.h = height;
    this.w = width;
    this.cells = height * width;
    this.words = Math.ceil(this.cells / 32);
    this.state = Array.from({ length: model.channels }, () => new Uint8Array(this.cells));
    this.next = Array.from({ length: model.channels }, () => new Uint8Array(this.cells));
    // The neighbour of each cell at each patch position (-1: outside a zero-padded grid).
    this.neighbour = [];
    for (let p = 0; p < 9; p++) {
      const dr = Math.floor(p / 3) - 1, dc = (p % 3) - 1;
      const table = new Int32Array(this.cells);
      for (let r = 0; r < height; r++) {
        for (let c = 0; c < width; c++) {
          let rr = r + dr, cc = c + dc;
          if (model.periodic) {
            rr = (rr + height) % height;
            cc = (cc + width) % width;
          }
          const inside = rr >= 0 && rr < height && cc >= 0 && cc < width;
          table[r * width + c] = inside ? rr * width + cc : -1;
        }
      }
      this.neighbour.push(table);
    }
    const inputs = model.channels * 9;
    this.inputs = inputs;
    const gates = model.gates.length / 3;
    this.values = Array.from({ length: inputs + gates }, () => null);
    // Only the inputs some gate or output reads are gathered.
    const read = new Uint8Array(inputs);
    for (let g = 0; g < gates; g++) {
      for (const s of [model.gates[3 * g + 1], model.gates[3 * g + 2]]) if (s < inputs) read[s] = 1;
    }
    for (const [, s] of model.outputs) if (s < inputs) read[s] = 1;
    this.read = [];
    for (let i = 0; i < inputs; i++) {
      if (read[i]) {
        this.read.push(i);
        this.values[i] = new Uint32Array(this.words);
      }
    }
    for (let g = 0; g < gates; g++) this.values[inputs + g] = new Uint32Array(this.words);
    this.fires = new Uint8Array(this.cells);
  }

  /** One step; `fires` (a byte per cell) or every cell when null. */
  step(fires) {
    const { m, words, cells, values } = this;
    for (const i of this.read) {
      const channel = this.state[Math.floor(i / 9)], table = this.neighbour[i % 9];
      const row = values[i];
      for (let w = 0; w < words; w++) {
        let v = 0;
        const base = w * 32, end = Math.min(32, cells - base);
        for (let k = 0; k < end; k++) {
          const n = table[base + k];
          if (n >= 0 && channel[n]) v |= 1 << k;
        }
        row[w] = v;
      }
    }
    const g3 = m.gates, truth = m.truth, inputs = this.inputs;
    for (let g = 0, out = inputs; g < g3.length; g += 3, out++) {
      const t = truth[g3[g]], a = values[g3[g + 1]], b = values[g3[g + 2]], o = values[out];
      // Bit (2a + b) of the op's truth table, for every lane at once.
      const t00 = t & 1 ? -1 : 0, t01 = t & 2 ? -1 : 0, t10 = t & 4 ? -1 : 0, t11 = t & 8 ? -1 : 0;
      for (let w = 0; w < words; w++) {
        const x = a[w], y = b[w];
        o[w] = (t00 & ~x & ~y) | (t01 & ~x & y) | (t10 & x & ~y) | (t11 & x & y);
      }
    }
    for (const [c, s] of m.outputs) {
      const row = values[s], old = this.state[c], next = this.next[c];
      for (let i = 0; i < cells; i++) {
        const bit = (row[i >>> 5] >>> (i & 31)) & 1;
        next[i] = fires && !fires[i] ? old[i] : bit;
      }
    }
    for (const [c] of m.outputs) [this.state[c], this.next[c]] = [this.next[c], this.state[c]];
  }

  /** Crc-32 of the live channels' bits, a byte each, by channel, row and column. */
  digest() {
    const bytes = new Uint8Array(this.m.live.length * this.cells);
    this.m.live.forEach((c, i) => bytes.set(this.state[c], i * this.cells));
    return crc32(bytes).toString(16).padStart(8, "0");
  }
}

// ---- Starts and fire masks, drawn as `logicars eval --seed S --batch 1` draws them ----

class Run {
  constructor(model, height, width, seed) {
    this.model = model;
    this.grid = new Automaton(model, height, width);
    this.rng = new ChaCha8(BigInt(seed));
    this.steps = 0;
    const { grid } = this;
    if (model.start === "random-bits" || model.start === "random-states") {
      for (let cell = 0; cell < grid.cells; cell++) {
        for (let c = 0; c < model.channels; c++) grid.state[c][cell] = this.rng.nextBool() ? 1 : 0;
      }
      if (model.start === "random-states") oneStatePerCell(grid, model.state_channels);
    } else if (model.start === "seeded-centre") {
      const centre = Math.floor(height / 2) * width + Math.floor(width / 2);
      for (let c = 0; c < model.channels; c++) grid.state[c][centre] = 1;
    }
  }

  /** One step; an asynchronous task draws which cells fire from the run's stream. */
  step(asynchronous) {
    const { grid, model } = this;
    let fires = null;
    if (model.fireRate !== null && asynchronous) {
      const rate = Math.fround(model.fireRate);
      fires = grid.fires;
      for (let i = 0; i < grid.cells; i++) fires[i] = this.rng.nextF32() <= rate ? 1 : 0;
    }
    grid.step(fires);
    this.steps += 1;
  }
}

// ---- The page ----

/** Sides a grid may have: larger ones would freeze the tab. */
const SIDE = { min: 3, max: 256 };

const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);

/** A whole number from the URL or a field, clamped to [min, max] with a message. */
function clampSide(text, fallback, what) {
  const n = Number.parseInt(text, 10);
  if (!Number.isFinite(n)) {
    say(`${what}: "${text}" is not a number; using ${fallback}`);
    return fallback;
  }
  if (n < SIDE.min || n > SIDE.max) {
    const side = Math.min(SIDE.max, Math.max(SIDE.min, n));
    say(`${what} ${n} is outside ${SIDE.min} to ${SIDE.max}; using ${side}`);
    return side;
  }
  return n;
}

function say(text) {
  $("message").textContent = text;
}

const view = {
  run: null,
  playing: false,
  timer: null,
  asynchronous: MODEL.fireRate !== null,
  seed: 0,
};

function sizeFromFields() {
  const h = clampSide($("height").value, MODEL.opening[0], "height");
  const w = clampSide($("width").value, MODEL.opening[1], "width");
  $("height").value = h;
  $("width").value = w;
  return [h, w];
}

/** A new run from the seed field (the task's start, as `eval --seed` draws it). */
function restart() {
  const [h, w] = sizeFromFields();
  let seed = $("seed").value.trim();
  if (!/^\d{1,19}$/.test(seed) || BigInt(seed) > 18446744073709551615n) {
    say(`seed "${seed}" is not a whole number from 0 to 2^64-1; using 0`);
    seed = "0";
    $("seed").value = seed;
  }
  view.run = new Run(MODEL, h, w, seed);
  draw();
}

/** A rule's valid states: each cell keeps its first channel on among the state channels. */
function oneStatePerCell(grid, channels) {
  for (let cell = 0; cell < grid.cells; cell++) {
    let on = false;
    for (let c = 0; c < channels; c++) {
      if (on) grid.state[c][cell] = 0;
      else if (grid.state[c][cell]) on = true;
    }
  }
}

/** A new run from random bits in every channel (not a seed `eval` can replay). */
function randomStart() {
  restart();
  const { grid } = view.run;
  for (const channel of grid.state) {
    for (let i = 0; i < channel.length; i++) channel[i] = Math.random() < 0.5 ? 1 : 0;
  }
  if (view.run.model.start === "random-states") oneStatePerCell(grid, view.run.model.state_channels);
  draw();
}

/** Colours of a rule's states 0 (empty), 1 (alive, electron head), 2 and 3. */
const STATE_COLOURS = [[255, 255, 255], [20, 20, 20], [230, 120, 40], [60, 110, 220]];

function draw() {
  const { grid, steps } = view.run;
  const canvas = $("grid");
  const scale = Math.max(1, Math.floor(Math.min(480 / grid.w, 480 / grid.h)));
  if (canvas.width !== grid.w * scale || canvas.height !== grid.h * scale) {
    canvas.width = grid.w * scale;
    canvas.height = grid.h * scale;
  }
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(grid.w, grid.h);
  const vis = MODEL.visible.map((c) => grid.state[c]);
  const states = MODEL.state_channels > 1;
  for (let i = 0; i < grid.cells; i++) {
    const o = i * 4;
    if (states) {
      // A rule's state: the first of its channels on, drawn in that state's colour.
      let state = 0;
      while (state < MODEL.state_channels && !grid.state[state][i]) state++;
      const rgb = STATE_COLOURS[state < MODEL.state_channels ? state + 1 : 0];
      image.data.set(rgb, o);
    } else if (vis.length === 3) {
      image.data[o] = vis[0][i] * 255;
      image.data[o + 1] = vis[1][i] * 255;
      image.data[o + 2] = vis[2][i] * 255;
    } else {
      const v = vis[0][i] ? 0 : 255;
      image.data[o] = image.data[o + 1] = image.data[o + 2] = v;
    }
    image.data[o + 3] = 255;
  }
  const small = document.createElement("canvas");
  small.width = grid.w;
  small.height = grid.h;
  small.getContext("2d").putImageData(image, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(small, 0, 0, canvas.width, canvas.height);
  $("step-count").textContent = `step ${steps}`;
}

function stepOnce() {
  view.run.step(view.asynchronous);
  draw();
}

function setPlaying(on) {
  view.playing = on;
  $("play").textContent = on ? "Pause" : "Play";
  $("play").setAttribute("aria-pressed", String(on));
  clearInterval(view.timer);
  if (on) view.timer = setInterval(stepOnce, 1000 / Number($("speed").value));
}

/** Damage under the pointer: erase a disc (every channel 0) or flip random bits in it. */
function damageAt(event) {
  const canvas = $("grid");
  const box = canvas.getBoundingClientRect();
  const { grid } = view.run;
  const col = Math.floor(((event.clientX - box.left) / box.width) * grid.w);
  const row = Math.floor(((event.clientY - box.top) / box.height) * grid.h);
  const radius = Number($("radius").value);
  const flip = $("brush").value === "flip";
  for (let r = row - radius; r <= row + radius; r++) {
    for (let c = col - radius; c <= col + radius; c++) {
      if ((r - row) ** 2 + (c - col) ** 2 > radius * radius) continue;
      if (r < 0 || r >= grid.h || c < 0 || c >= grid.w) continue;
      const i = r * grid.w + c;
      for (const channel of grid.state) {
        channel[i] = flip ? (Math.random() < 0.5 ? channel[i] ^ 1 : channel[i]) : 0;
      }
    }
  }
  draw();
}

function wire() {
  $("play").addEventListener("click", () => setPlaying(!view.playing));
  $("step").addEventListener("click", () => {
    setPlaying(false);
    stepOnce();
  });
  $("reset").addEventListener("click", restart);
  $("random").addEventListener("click", randomStart);
  $("speed").addEventListener("input", () => {
    $("speed-value").textContent = `${$("speed").value} steps/s`;
    if (view.playing) setPlaying(true);
  });
  $("async").checked = view.asynchronous;
  $("async").disabled = MODEL.fireRate === null;
  $("async").addEventListener("change", () => (view.asynchronous = $("async").checked));
  for (const id of ["height", "width"]) $(id).addEventListener("change", restart);
  const canvas = $("grid");
  let painting = false;
  canvas.addEventListener("pointerdown", (e) => {
    painting = true;
    canvas.setPointerCapture(e.pointerId);
    damageAt(e);
  });
  canvas.addEventListener("pointermove", (e) => painting && damageAt(e));
  canvas.addEventListener("pointerup", () => (painting = false));
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === " ") {
      e.preventDefault();
      setPlaying(!view.playing);
    } else if (e.key === "s" || e.key === "ArrowRight") {
      stepOnce();
    } else if (e.key === "r") {
      restart();
    }
  });
}

/** `?seed=S&steps=N&size=HxW`: runs N steps at load and writes the grid's digest into
 * the page (#digest), for tests that compare it with `logicars eval --digest`. */
function runFromUrl() {
  if (params.has("seed")) $("seed").value = params.get("seed");
  if (params.has("size")) {
    const [h, w] = params.get("size").split("x");
    $("height").value = h;
    $("width").value = w ?? h;
  }
  if (params.get("sync") === "1") view.asynchronous = false;
  restart();
  if (!params.has("steps")) return;
  const steps = Math.min(1 << 20, Math.max(0, Number.parseInt(params.get("steps"), 10) || 0));
  const start = performance.now();
  for (let t = 0; t < steps; t++) view.run.step(view.asynchronous);
  const seconds = (performance.now() - start) / 1000;
  draw();
  $("digest").textContent = view.run.grid.digest();
  $("rate").textContent = seconds > 0 ? `${Math.round(steps / seconds)} steps/s` : "";
}

$("task").textContent = `${MODEL.task}, ${MODEL.height}x${MODEL.width}, ${MODEL.steps} steps`;
$("gates").textContent = `${MODEL.gates.length / 3} gates`;
$("height").value = MODEL.opening[0];
$("width").value = MODEL.opening[1];
wire();
runFromUrl();
