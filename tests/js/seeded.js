// Seeded 32-bit generator for tests only (xoshiro128**, seeded through splitmix32), with the
// same { uint32() } interface as cryptoSource in static/surveys/ldp.js. Not for production:
// the browser must use crypto.getRandomValues.

function splitmix32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export function seededSource(seed) {
  const init = splitmix32(seed);
  const s = [init(), init(), init(), init()];
  const rotl = (x, r) => ((x << r) | (x >>> (32 - r))) >>> 0;
  return {
    uint32() {
      const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
      const t = (s[1] << 9) >>> 0;
      s[2] ^= s[0];
      s[3] ^= s[1];
      s[1] ^= s[2];
      s[0] ^= s[3];
      s[2] ^= t;
      s[3] = rotl(s[3], 11);
      s[0] >>>= 0;
      s[1] >>>= 0;
      s[2] >>>= 0;
      return result;
    },
  };
}

// A source that replays fixed values, to test exact thresholds and rejection.
export function replaySource(values) {
  let next = 0;
  return {
    uint32() {
      if (next >= values.length) throw new Error("replaySource ran out of values");
      return values[next++] >>> 0;
    },
    get used() {
      return next;
    },
  };
}
