// Local differential privacy in the browser: randomize one answer before it leaves the device.
// Twin of surveys/ldp/mechanisms.py (the server side); tests/ldp_vectors.json keeps the two in step.
// Plain ES module, no DOM. Randomness comes only from crypto.getRandomValues.
//
// A spec is what surveys/ldp/mechanisms.py's Mechanism.spec() returns, e.g.
//   {mechanism: "rr", encoding: "bit", k: 2, epsilon: 1, p: 0.731, q: 0.731, ...}
// encoding "bit":   P(report 1 | answer 1) = p, P(report 0 | answer 0) = q.
// encoding "index": report the answer with probability p, else one of the k - 1 others
//                   uniformly (each with probability q).
// encoding "unary": k bits; bit i is 1 with probability p if i is the answer, q otherwise.
// encoding "sampled": check all that apply; the answer is k boxes (0/1). One box j is picked
//                   uniformly, its value kept with probability p (= q) and flipped otherwise;
//                   the report is [j, value] (surveys/ldp/checkall.py).
// encoding "number": a bounded number, put on the grid of the range as the index i (0..steps)
//                   of numberIndex. A window of `width` of the `cells`
//                   output cells starts at s = floor(i (cells - width) / steps), moved up by
//                   one with the exact probability of the remainder; the report is a cell of
//                   the window with probability p, else one of the others, each uniformly
//                   (surveys/ldp/numbers.py). A question that may get no number ("No
//                   answer", "Not asked") has `extras` more windows after the `cells`: the
//                   answer {extra: e} starts at cells + e width (numberOutputs cells in all).

const MAX_CATEGORIES = 1000;
const TWO_POW_26 = 2 ** 26;
const TWO_POW_32 = 2 ** 32;
const TWO_POW_53 = 2 ** 53;

function makeCryptoSource(batch = 256) {
  const buffer = new Uint32Array(batch);
  let next = batch;
  return {
    uint32() {
      if (next === batch) {
        globalThis.crypto.getRandomValues(buffer);
        next = 0;
      }
      return buffer[next++];
    },
  };
}

// Default random source: uniform 32-bit integers from crypto.getRandomValues, fetched 256 at a time.
export const cryptoSource = makeCryptoSource();

// Uniform integer in [0, n) for an integer 1 <= n <= 2^32. Rejection sampling: draws at or
// above the largest multiple of n below 2^32 are redrawn, so every result is exactly equally
// likely (a plain `x % n` would favour small results). Fewer than 2 draws expected.
export function uniformInt(n, source = cryptoSource) {
  if (!Number.isInteger(n) || n < 1 || n > TWO_POW_32) {
    throw new Error(`uniformInt needs a whole number n from 1 to 2^32, got ${n}`);
  }
  const limit = TWO_POW_32 - (TWO_POW_32 % n);
  for (;;) {
    const x = source.uint32();
    if (x < limit) return x % n;
  }
}

// true with probability prob (0 <= prob <= 1). Compares a uniform 53-bit integer u (two 32-bit
// draws) with prob * 2^53, which is exact in floating point, so
//   P(true) = ceil(prob * 2^53) / 2^53, hence 0 <= P(true) - prob < 2^-53.
// prob = 0 and prob = 1 are exact.
export function bernoulli(prob, source = cryptoSource) {
  if (typeof prob !== "number" || !(prob >= 0 && prob <= 1)) {
    throw new Error(`bernoulli needs a probability between 0 and 1, got ${prob}`);
  }
  const u = (source.uint32() >>> 5) * TWO_POW_26 + (source.uint32() >>> 6); // 27 + 26 bits
  return u < prob * TWO_POW_53;
}

function isProbability(x) {
  return typeof x === "number" && x > 0 && x < 1;
}

// Exact epsilon of the spec's probabilities (same formulas as surveys/ldp/mechanisms.py).
function epsilonOf(encoding, p, q) {
  if (encoding === "bit") return Math.log(Math.max(p / (1 - q), q / (1 - p)));
  if (encoding === "index") return Math.log(p / q);
  if (encoding === "sampled") return Math.log(p / (1 - p));
  return Math.log((p * (1 - q)) / ((1 - p) * q));
}

const MAX_STEPS = 10 ** 7;
const MAX_DECIMALS = 3;
const MAX_EXTRAS = 2;

/** The cells a number spec's reports fall in: the grid's, then one window per extra answer. */
export function numberOutputs({ cells, width, extras = 0 }) {
  return extras ? cells + extras * width : cells;
}

// A number spec's checks: whole numbers of cells, width, steps and extras, and p / width
// against (1 - p) / (outputs - width) within the odds e^epsilon.
function validateNumberSpec(spec) {
  const { cells, width, steps, decimals, low, high, p, epsilon, extras = 0 } = spec;
  const whole = (x, low, high) => Number.isInteger(x) && x >= low && x <= high;
  if (!whole(cells, 3, MAX_CATEGORIES) || !whole(width, 1, cells - 2) || !whole(steps, 1, MAX_STEPS) || !whole(decimals, 0, MAX_DECIMALS) || !whole(extras, 0, MAX_EXTRAS)) {
    throw new Error("a number spec needs whole numbers of cells, width, steps, decimals and extras");
  }
  if (!(Number.isFinite(low) && Number.isFinite(high) && low < high)) {
    throw new Error("a number spec needs a range low < high");
  }
  if (!isProbability(p)) throw new Error(`spec.p must be a number strictly between 0 and 1, got ${p}`);
  if (typeof epsilon !== "number" || !(epsilon > 0) || !Number.isFinite(epsilon)) {
    throw new Error(`spec.epsilon must be a positive number, got ${epsilon}`);
  }
  const ratio = (p * (numberOutputs(spec) - width)) / ((1 - p) * width);
  if (!(ratio > 1)) throw new Error("spec.p would make reports uninformative or misleading");
  if (Math.log(ratio) > epsilon + 1e-6) throw new Error("spec.p gives less privacy than spec.epsilon promises");
}

// The index (0..steps) of a number on the grid of a number spec's range: the number has at
// most spec.decimals places, so number * 10^decimals is within rounding of a whole number
// and Math.round finds it exactly. Throws outside the range.
export function numberIndex(spec, value) {
  const scale = 10 ** spec.decimals;
  if (typeof value !== "number" || !Number.isFinite(value)) throw new Error(`not a number: ${value}`);
  const index = Math.round(value * scale) - Math.round(spec.low * scale);
  if (index < 0 || index > spec.steps) throw new Error(`${value} is outside [${spec.low}, ${spec.high}]`);
  return index;
}

// Throws an Error with a clear message unless spec describes a mechanism this module can run
// and its probabilities leak no more than the epsilon it advertises.
export function validateSpec(spec) {
  if (spec === null || typeof spec !== "object") throw new Error("spec must be an object");
  if (spec.encoding === "number") return validateNumberSpec(spec);
  const { encoding, k, p, q, epsilon } = spec;
  if (!["bit", "index", "unary", "sampled"].includes(encoding)) {
    throw new Error(`spec.encoding must be "bit", "index", "unary", "sampled" or "number", got ${encoding}`);
  }
  if (!Number.isInteger(k) || k < 2 || k > MAX_CATEGORIES) {
    throw new Error(`spec.k must be a whole number from 2 to ${MAX_CATEGORIES}, got ${k}`);
  }
  if (encoding === "bit" && k !== 2) throw new Error("a yes/no spec must have k = 2");
  if (!isProbability(p) || !isProbability(q)) {
    throw new Error(`spec.p and spec.q must be numbers strictly between 0 and 1, got ${p}, ${q}`);
  }
  if (encoding === "sampled" ? !(p === q && p > 0.5) : encoding === "bit" ? !(p + q > 1) : !(p > q)) {
    throw new Error("spec.p and spec.q would make reports uninformative or misleading");
  }
  if (encoding === "index" && Math.abs(p + (k - 1) * q - 1) > 1e-12) {
    throw new Error("an index spec needs p + (k - 1) q = 1");
  }
  if (typeof epsilon !== "number" || !(epsilon > 0) || !Number.isFinite(epsilon)) {
    throw new Error(`spec.epsilon must be a positive number, got ${epsilon}`);
  }
  // The slack absorbs rounding: p and q are doubles, so near epsilon = 20 (the server's
  // maximum) their ln-ratios are only good to ~2e-7. A leak of 1e-6 in epsilon is immaterial.
  if (epsilonOf(encoding, p, q) > epsilon + 1e-6) {
    throw new Error("spec.p and spec.q give less privacy than spec.epsilon promises");
  }
}

// Randomize one answer (an integer category: 0 = no / 1 = yes for yes/no questions; for
// "sampled", an array of k 0/1, the ticked boxes; for "number", the number itself, in the
// range with at most spec.decimals places, or {extra: e} for an extra answer). Returns 0|1 for "bit", an integer in [0, k) for "index", an array of k 0/1
// for "unary", [box, 0|1] for "sampled", a cell in [0, cells) for "number".
export function randomize(spec, answer, source = cryptoSource) {
  validateSpec(spec);
  const { encoding, k, p, q } = spec;
  if (encoding === "number") {
    const { cells, width, steps, extras = 0 } = spec;
    let start;
    if (typeof answer === "object" && answer !== null) {
      if (!Number.isInteger(answer.extra) || answer.extra < 0 || answer.extra >= extras) {
        throw new Error(`an extra answer must be {extra: e} with e from 0 to ${extras - 1}`);
      }
      start = cells + answer.extra * width;
    } else {
      // i (cells - width) < 2^53: exact integers, so floor and remainder are exact.
      const position = numberIndex(spec, answer) * (cells - width);
      start = Math.floor(position / steps) + (uniformInt(steps, source) < position % steps ? 1 : 0);
    }
    if (bernoulli(p, source)) return start + uniformInt(width, source);
    const other = uniformInt(numberOutputs(spec) - width, source);
    return other >= start ? other + width : other; // skip the window: uniform over the others
  }
  if (encoding === "sampled") {
    if (!Array.isArray(answer) || answer.length !== k || !answer.every((x) => x === 0 || x === 1)) {
      throw new Error(`answer must be an array of ${k} zeros and ones`);
    }
    const box = uniformInt(k, source);
    return [box, bernoulli(p, source) ? answer[box] : 1 - answer[box]];
  }
  if (!Number.isInteger(answer) || answer < 0 || answer >= k) {
    throw new Error(`answer must be a whole number from 0 to ${k - 1}, got ${answer}`);
  }
  if (encoding === "bit") {
    return bernoulli(answer === 1 ? p : q, source) ? answer : 1 - answer;
  }
  if (encoding === "index") {
    if (bernoulli(p, source)) return answer;
    const other = uniformInt(k - 1, source);
    return other >= answer ? other + 1 : other; // skip the answer: uniform over the others
  }
  const bits = new Array(k);
  for (let i = 0; i < k; i++) bits[i] = bernoulli(i === answer ? p : q, source) ? 1 : 0;
  return bits;
}

// The blocks of questions a respondent is asked, in a design that asks each respondent a random
// few (surveys/ldp/designs.py, draw_blocks, is the reference): `asked` of the indices
// 0..blocks-1, uniformly over the subsets of that size, in increasing order. The first `asked`
// steps of a Fisher-Yates shuffle, each place drawn exactly uniformly (uniformInt). Independent
// of every answer: it is drawn before any is given.
export function drawBlocks(blocks, asked, source = cryptoSource) {
  if (!Number.isInteger(blocks) || blocks < 1 || !Number.isInteger(asked) || asked < 1 || asked > blocks) {
    throw new Error(`drawBlocks needs 1 <= asked <= blocks, got ${asked} of ${blocks}`);
  }
  const order = Array.from({ length: blocks }, (_, i) => i);
  for (let i = 0; i < asked; i++) {
    const j = i + uniformInt(blocks - i, source);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order.slice(0, asked).sort((a, b) => a - b);
}
