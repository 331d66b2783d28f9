// Tests for static/surveys/ldp.js. Run with: node --test tests/js/
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  bernoulli,
  drawBlocks,
  numberIndex,
  numberOutputs,
  cryptoSource,
  randomize,
  uniformInt,
  validateSpec,
} from "../../static/surveys/ldp.js";
import { replaySource, seededSource } from "./seeded.js";

const { vectors, checkall } = JSON.parse(readFileSync(new URL("../ldp_vectors.json", import.meta.url)));
const DRAWS = 200_000;

// Upper 0.001 quantile of chi-square(df), Wilson-Hilferty approximation:
// df * (1 - 2/(9 df) + z sqrt(2/(9 df)))^3 with z = 3.0902 the normal 0.999 quantile. It is
// within 1% of the exact value for df >= 3 and slightly above it (conservative) for df = 1, 2
// (e.g. 14.1 against the exact 13.8 for df = 2). With a fixed seed each test is deterministic;
// at 0.001 per vector the chance that a correct sampler fails any of the ~60 is about 6%
// before the seed is fixed, and the seed is not chosen to pass.
function chiSquareCritical(df) {
  const z = 3.090232306167813;
  const c = 2 / (9 * df);
  return df * (1 - c + z * Math.sqrt(c)) ** 3;
}

function label({ spec }) {
  const params = Object.entries(spec)
    .filter(([key]) => !["mechanism", "encoding", "k", "p", "q"].includes(key))
    .map(([key, value]) => `${key}=${Number(value.toFixed(4))}`);
  return `${spec.mechanism} k=${spec.k} ${params.join(" ")}`;
}

// Goodness of fit of DRAWS seeded reports against the exact matrix, true answers cycling over
// all k categories. "bit"/"index": the (report, answer) table against
// count(answer) * P(report | answer), k (k - 1) degrees of freedom. "unary": each (bit, answer)
// count of ones is binomial and the bits are independent given the answer, so the sum of the
// k^2 squared z-scores is chi-square with k^2 degrees of freedom.
for (const [index, vector] of vectors.entries()) {
  test(`sampler matches the matrix: ${label(vector)}`, () => {
    const { spec, matrix } = vector;
    const k = spec.k;
    const source = seededSource(1000 + index);
    const perAnswer = new Array(k).fill(0);
    const table = Array.from({ length: k }, () => new Array(k).fill(0)); // [report or bit][answer]
    for (let t = 0; t < DRAWS; t++) {
      const answer = t % k;
      perAnswer[answer] += 1;
      const report = randomize(spec, answer, source);
      if (spec.encoding === "unary") {
        assert.equal(report.length, k);
        for (let c = 0; c < k; c++) table[c][answer] += report[c];
      } else {
        table[report][answer] += 1;
      }
    }
    let statistic = 0;
    for (let r = 0; r < k; r++) {
      for (let i = 0; i < k; i++) {
        const expected = perAnswer[i] * matrix[r][i];
        const variance = spec.encoding === "unary" ? expected * (1 - matrix[r][i]) : expected;
        statistic += (table[r][i] - expected) ** 2 / variance;
      }
    }
    const df = spec.encoding === "unary" ? k * k : k * (k - 1);
    assert.ok(statistic < chiSquareCritical(df), `chi2 = ${statistic} with ${df} df`);
  });
}

// Check all that apply: for each ticked set of the shared vectors, the 2k (box, value) counts
// of seeded reports against DRAWS * P([box, value] | set), chi-square with 2k - 1 df.
for (const [index, { spec, cases }] of checkall.entries()) {
  for (const { ticked, probabilities } of cases) {
    test(`check-all sampler matches the vectors: k=${spec.k} epsilon=${spec.epsilon} ticked=${ticked.join("")}`, () => {
      const source = seededSource(5000 + index);
      const table = Array.from({ length: spec.k }, () => [0, 0]);
      for (let t = 0; t < DRAWS; t++) {
        const [box, value] = randomize(spec, ticked, source);
        table[box][value] += 1;
      }
      let statistic = 0;
      for (let box = 0; box < spec.k; box++) {
        for (const value of [0, 1]) {
          const expected = DRAWS * probabilities[box][value];
          statistic += (table[box][value] - expected) ** 2 / expected;
        }
      }
      const df = 2 * spec.k - 1;
      assert.ok(statistic < chiSquareCritical(df), `chi2 = ${statistic} with ${df} df`);
    });
  }
}

test("a check-all report has the same shape whatever is ticked", () => {
  const source = seededSource(11);
  for (const { spec, cases } of checkall) {
    for (const { ticked } of cases) {
      const [box, value] = randomize(spec, ticked, source);
      assert.ok(Number.isInteger(box) && box >= 0 && box < spec.k);
      assert.ok(value === 0 || value === 1);
    }
    assert.throws(() => randomize(spec, 1, source), /array of/);
    assert.throws(() => randomize(spec, new Array(spec.k + 1).fill(0), source), /array of/);
  }
});

test("a check-all spec whose p promises less privacy than its epsilon is refused", () => {
  const { spec } = checkall[0];
  validateSpec(spec);
  assert.throws(() => validateSpec({ ...spec, p: 0.99, q: 0.99 }), /less privacy/);
  assert.throws(() => validateSpec({ ...spec, q: spec.p / 2 }), /uninformative/);
});

test("every shared vector is a valid spec", () => {
  for (const { spec } of vectors) validateSpec(spec);
});

test("reports have the right shape", () => {
  const source = seededSource(7);
  for (const { spec } of vectors) {
    for (let answer = 0; answer < spec.k; answer++) {
      const report = randomize(spec, answer, source);
      if (spec.encoding === "unary") {
        assert.ok(Array.isArray(report) && report.length === spec.k);
        assert.ok(report.every((bit) => bit === 0 || bit === 1));
      } else {
        assert.ok(Number.isInteger(report) && report >= 0 && report < spec.k);
      }
    }
  }
});

test("the default source is crypto.getRandomValues", () => {
  const original = globalThis.crypto.getRandomValues;
  let calls = 0;
  globalThis.crypto.getRandomValues = function (array) {
    calls += 1;
    assert.ok(array instanceof Uint32Array);
    return original.call(globalThis.crypto, array);
  };
  try {
    const spec = vectors.find((v) => v.spec.encoding === "unary" && v.spec.k === 20).spec;
    for (let i = 0; i < 100; i++) randomize(spec, 3); // 4,000 uint32 draws: several refills
  } finally {
    globalThis.crypto.getRandomValues = original;
  }
  assert.ok(calls >= 10, `getRandomValues called ${calls} times`);
});

test("Math.random is never used", () => {
  const original = Math.random;
  Math.random = () => {
    throw new Error("Math.random called");
  };
  try {
    for (const { spec } of vectors) randomize(spec, 1);
    uniformInt(7);
    bernoulli(0.3);
  } finally {
    Math.random = original;
  }
  const code = readFileSync(new URL("../../static/surveys/ldp.js", import.meta.url), "utf8");
  assert.ok(!code.includes("Math.random"));
});

test("uniformInt has no modulo bias", () => {
  // n = 3 * 2^29, so 2^32 = 2n + 2^30: with a plain `x % n`, results below 2^30 would have
  // three preimages and the rest two, and the thirds [0, 2^29), [2^29, 2^30), [2^30, n) would
  // get 37.5%, 37.5% and 25%. 30,000 draws put that ~700 chi-square units past the cut-off.
  const n = 3 * 2 ** 29;
  const source = seededSource(99);
  const bins = [0, 0, 0];
  const draws = 30_000;
  for (let t = 0; t < draws; t++) bins[Math.floor(uniformInt(n, source) / 2 ** 29)] += 1;
  const statistic = bins.reduce((sum, b) => sum + (b - draws / 3) ** 2 / (draws / 3), 0);
  assert.ok(statistic < chiSquareCritical(2), `bins ${bins}`);
});

test("uniformInt is uniform for a small n", () => {
  const n = 7;
  const draws = 70_000;
  const counts = new Array(n).fill(0);
  const source = seededSource(5);
  for (let t = 0; t < draws; t++) counts[uniformInt(n, source)] += 1;
  const statistic = counts.reduce((sum, c) => sum + (c - draws / n) ** 2 / (draws / n), 0);
  assert.ok(statistic < chiSquareCritical(n - 1), `counts ${counts}`);
});

test("uniformInt rejects draws from the incomplete last block", () => {
  // For n = 3 the accepted draws are x < 2^32 - 1 (= 3 * 1431655765); 2^32 - 1 is redrawn.
  const source = replaySource([0xffffffff, 0xffffffff, 5]);
  assert.equal(uniformInt(3, source), 2);
  assert.equal(source.used, 3);
  assert.equal(uniformInt(1, replaySource([0xffffffff])), 0);
  assert.equal(uniformInt(2 ** 32, replaySource([0xfffffffe])), 0xfffffffe);
});

test("bernoulli thresholds are exact to 2^-53", () => {
  // u = (first >>> 5) * 2^26 + (second >>> 6) is uniform on [0, 2^53); true iff u < p * 2^53.
  const below = [0x7fffffff, 0xffffffff]; // u = 2^52 - 1
  const at = [0x80000000, 0x00000000]; // u = 2^52
  assert.equal(bernoulli(0.5, replaySource(below)), true);
  assert.equal(bernoulli(0.5, replaySource(at)), false);
  assert.equal(bernoulli(0, replaySource([0, 0])), false);
  assert.equal(bernoulli(1, replaySource([0xffffffff, 0xffffffff])), true);
  assert.equal(bernoulli(2 ** -53, replaySource([0, 0])), true);
  assert.equal(bernoulli(2 ** -53, replaySource([0, 64])), false); // u = 1
  for (const bad of [-0.1, 1.1, NaN, "0.5", null]) {
    assert.throws(() => bernoulli(bad), /probability/);
  }
});

test("invalid specs are refused", () => {
  const good = vectors[0].spec;
  const grr = vectors.find((v) => v.spec.encoding === "index" && v.spec.k === 6).spec;
  const bad = [
    null,
    undefined,
    "rr",
    {},
    { ...good, encoding: "spinner" },
    { ...good, k: 3 },
    { ...good, k: 2.5 },
    { ...grr, k: 1 },
    { ...grr, k: 1001 },
    { ...good, p: 1 },
    { ...good, q: 0 },
    { ...good, p: "0.7" },
    { ...good, p: 0.4, q: 0.5 }, // p + q <= 1
    { ...grr, q: grr.q * 1.01 }, // p + (k - 1) q != 1
    { ...good, epsilon: undefined },
    { ...good, epsilon: good.epsilon / 2 }, // probabilities leak more than advertised
  ];
  for (const spec of bad) {
    assert.throws(() => randomize(spec, 0, seededSource(1)), Error, JSON.stringify(spec));
  }
});

test("the largest epsilon the server allows passes despite rounding", () => {
  const p = 1 / (1 + Math.exp(-20));
  validateSpec({ mechanism: "rr", encoding: "bit", k: 2, epsilon: 20, p, q: p });
});

test("invalid answers are refused", () => {
  for (const { spec } of [vectors[0], vectors.at(-1)]) {
    for (const answer of [-1, spec.k, 1.5, "1", true, null, undefined, NaN, [1]]) {
      assert.throws(() => randomize(spec, answer, seededSource(1)), /answer/);
    }
  }
});

// Numbers: for each grid index of the shared vectors, the cells of seeded reports against
// DRAWS * P(cell | index), chi-square over the cells with positive probability.
const { numbers } = JSON.parse(readFileSync(new URL("../ldp_vectors.json", import.meta.url)));
// A vector case's answer: the number at its grid index, or its extra answer.
const caseAnswer = (spec, { index, extra }) =>
  extra === undefined ? spec.low + index / 10 ** spec.decimals : { extra };
for (const [index, { spec, cases }] of numbers.entries()) {
  for (const vector of cases) {
    const { probabilities } = vector;
    const number = vector.extra === undefined;
    const name = number ? `index=${vector.index}` : `extra=${vector.extra}`;
    test(`number sampler matches the vectors: epsilon=${spec.epsilon} [${spec.low}, ${spec.high}] ${name}`, () => {
      const source = seededSource(7000 + index * 100 + (number ? vector.index : 1000 + vector.extra));
      const outputs = numberOutputs(spec);
      const table = new Array(outputs).fill(0);
      const draws = DRAWS / 4;
      const value = caseAnswer(spec, vector);
      for (let t = 0; t < draws; t++) table[randomize(spec, value, source)] += 1;
      let statistic = 0;
      for (let cell = 0; cell < outputs; cell++) {
        const expected = draws * probabilities[cell];
        statistic += (table[cell] - expected) ** 2 / expected;
      }
      const df = outputs - 1;
      assert.ok(statistic < chiSquareCritical(df), `chi2 = ${statistic} with ${df} df`);
    });
  }
}

test("a number's remainder is drawn exactly: the window moves up iff uniformInt(steps) < remainder", () => {
  const spec = numbers[0].spec; // steps 10
  const answer = 3;
  const position = answer * (spec.cells - spec.width);
  const remainder = position % spec.steps;
  const start = Math.floor(position / spec.steps);
  // uniformInt(steps) = remainder - 1 (moves up), then bernoulli true (two draws of 0), then
  // uniformInt(width) = 0: the report is the window's first cell.
  const up = replaySource([remainder - 1, 0, 0, 0]);
  assert.equal(randomize(spec, spec.low + answer, up), start + 1);
  const stay = replaySource([remainder, 0, 0, 0]);
  assert.equal(randomize(spec, spec.low + answer, stay), start);
});

test("numbers map onto the grid exactly and out-of-range ones are refused", () => {
  const spec = numbers[3].spec; // -2.5 to 2.5 with 2 decimals
  assert.equal(numberIndex(spec, -2.5), 0);
  assert.equal(numberIndex(spec, 0.07), 257);
  assert.equal(numberIndex(spec, 2.5), spec.steps);
  assert.throws(() => numberIndex(spec, 2.51), /outside/);
  assert.throws(() => randomize(spec, 2.51), /outside/);
  assert.throws(() => randomize(spec, "1"), /not a number/);
  for (const { spec: good } of numbers) validateSpec(good);
  assert.throws(() => validateSpec({ ...spec, p: 0.999 }), /less privacy/);
});

// The exact law of the number randomizer, from every path through its draws: a source that
// replays chosen values takes the window's move (uniformInt(steps) = j, each 1 / steps), the
// window or not (bernoulli: u = 0 is true, u = 2^53 - 1 false; p and 1 - p) and the cell
// (uniformInt(width) or uniformInt(cells - width) = c, each equally likely). Summed, the
// paths' weights must give the shared vectors' probabilities.
test("the number randomizer's exact law over every path of its draws matches the vectors", () => {
  for (const { spec, cases } of numbers.filter(({ spec }) => spec.steps <= 100)) {
    const { width, steps, p } = spec;
    const outputs = numberOutputs(spec);
    for (const vector of cases) {
      const { probabilities } = vector;
      const law = new Array(outputs).fill(0);
      const value = caseAnswer(spec, vector);
      const extra = vector.extra !== undefined; // no move of the window to draw
      const moves = extra ? 1 : steps;
      for (let j = 0; j < moves; j++) {
        for (const inside of [true, false]) {
          const choices = inside ? width : outputs - width;
          for (let c = 0; c < choices; c++) {
            const coin = inside ? [0, 0] : [0xffffffff, 0xffffffff];
            const source = replaySource(extra ? [...coin, c] : [j, ...coin, c]);
            const report = randomize(spec, value, source);
            assert.equal(source.used, extra ? 3 : 4);
            law[report] += (1 / moves) * (inside ? p : 1 - p) * (1 / choices);
          }
        }
      }
      for (let cell = 0; cell < outputs; cell++) {
        assert.ok(Math.abs(law[cell] - probabilities[cell]) < 1e-12, `cell ${cell}: ${law[cell]} vs ${probabilities[cell]}`);
      }
    }
  }
});

// The draw of a design's blocks (surveys/ldp/designs.py, draw_blocks: uniform over the subsets
// of `asked` blocks). Its exact law, from every path through its draws (uniformInt(blocks - i)
// = j_i, each 1 / (blocks - i)), gives every subset 1 / C(blocks, asked); and seeded draws
// pass a chi-square test against that law.
test("the draw of a design's blocks is exactly uniform over the subsets of their number", () => {
  const choose = (n, k) => (k === 0 ? 1 : (n * choose(n - 1, k - 1)) / k);
  for (const [blocks, asked] of [[1, 1], [4, 1], [4, 2], [5, 3], [6, 6]]) {
    const law = new Map();
    const paths = (prefix) => {
      if (prefix.length === asked) {
        const source = replaySource(prefix);
        const subset = drawBlocks(blocks, asked, source).join(",");
        assert.equal(source.used, asked);
        const weight = prefix.reduce((w, _, i) => w / (blocks - i), 1);
        law.set(subset, (law.get(subset) ?? 0) + weight);
        return;
      }
      for (let j = 0; j < blocks - prefix.length; j++) paths([...prefix, j]);
    };
    paths([]);
    assert.equal(law.size, choose(blocks, asked));
    for (const [subset, p] of law) {
      assert.ok(Math.abs(p - 1 / choose(blocks, asked)) < 1e-12, `${subset}: ${p}`);
      const drawn = subset.split(",").map(Number);
      assert.deepEqual(drawn, [...new Set(drawn)].sort((a, b) => a - b));
    }
  }
  const blocks = 6, asked = 2, draws = 15000;
  const counts = new Map();
  const source = seededSource(77);
  for (let i = 0; i < draws; i++) {
    const key = drawBlocks(blocks, asked, source).join(",");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const expected = draws / 15; // C(6, 2) subsets
  let statistic = 0;
  for (const count of counts.values()) statistic += (count - expected) ** 2 / expected;
  assert.equal(counts.size, 15);
  assert.ok(statistic < chiSquareCritical(14), `chi2 = ${statistic} with 14 df`);
  assert.throws(() => drawBlocks(3, 4), /1 <= asked <= blocks/);
  assert.throws(() => drawBlocks(3, 0), /1 <= asked <= blocks/);
});
