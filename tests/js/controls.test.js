// The respondent page's answer controls (static/surveys/controls/), on a stand-in for the DOM.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ANSWER_CONTROLS, controlOf } from "../../static/surveys/controls/index.js";
import * as oneChoice from "../../static/surveys/controls/one_choice.js";

/** A fieldset of `count` radio buttons, each in an option, as one_choice.html renders it. */
function choiceFieldset(count, dataset = { control: "one_choice", question: "7" }) {
  const radios = Array.from({ length: count }, (_, i) => ({ value: String(i), checked: false }));
  const options = radios.map((input) => {
    const classes = new Set();
    return {
      querySelector: () => input,
      classList: { toggle: (name, on) => (on ? classes.add(name) : classes.delete(name)), has: (name) => classes.has(name) },
    };
  });
  return {
    dataset,
    radios,
    options,
    querySelector: (selector) => {
      assert.equal(selector, "input[type=radio]:checked");
      return radios.find((input) => input.checked) ?? null;
    },
    querySelectorAll: (selector) => (selector === ".answer-option" ? options : radios),
  };
}

test("one choice reads the chosen option's index, and nothing before a choice", () => {
  const fieldset = choiceFieldset(3);
  assert.equal(oneChoice.read(fieldset), undefined);
  fieldset.radios[2].checked = true;
  assert.equal(oneChoice.read(fieldset), 2);
});

test("one choice forgets the answer and shows which option is chosen", () => {
  const fieldset = choiceFieldset(2);
  fieldset.radios[1].checked = true;
  oneChoice.highlight(fieldset);
  assert.deepEqual(fieldset.options.map((o) => o.classList.has("border-primary")), [false, true]);
  oneChoice.clear(fieldset);
  assert.equal(oneChoice.read(fieldset), undefined);
  oneChoice.highlight(fieldset);
  assert.deepEqual(fieldset.options.map((o) => o.classList.has("border-primary")), [false, false]);
});

test("a fieldset's control is found by its data-control, and an unknown one is refused", () => {
  assert.equal(controlOf(choiceFieldset(2)), ANSWER_CONTROLS.one_choice);
  assert.throws(() => controlOf(choiceFieldset(2, { control: "slider" })), /no answer control named slider/);
});

test("a rating scale reads the chosen point's index, forgets it and shows it, as one choice does", () => {
  const fieldset = choiceFieldset(5, { control: "rating_scale", question: "8" });
  const control = controlOf(fieldset);
  assert.equal(control, ANSWER_CONTROLS.rating_scale);
  assert.equal(control.read(fieldset), undefined);
  fieldset.radios[4].checked = true;
  assert.equal(control.read(fieldset), 4);
  control.highlight(fieldset);
  assert.deepEqual(fieldset.options.map((o) => o.classList.has("border-primary")), [false, false, false, false, true]);
  control.clear(fieldset);
  assert.equal(control.read(fieldset), undefined);
});

/** A check-all fieldset as check_all.html renders it: `count` option boxes in the
 * [data-boxes] list (`boxes` in all: the options and the extra answers), and with `refusal`
 * (its box's index) a "Prefer not to say" box after them. */
function checkAllFieldset(count, boxes = count, refusal = null) {
  const box = (value) => ({ value: String(value), checked: false, disabled: false });
  const inputs = Array.from({ length: count }, (_, i) => box(i));
  const refused = refusal === null ? null : { ...box(refusal), refusal: true };
  const all = refused ? [...inputs, refused] : inputs;
  const options = all.map((input) => {
    const classes = new Set();
    return {
      querySelector: () => input,
      classList: { toggle: (name, on) => (on ? classes.add(name) : classes.delete(name)), has: (name) => classes.has(name) },
    };
  });
  const list = {
    dataset: { boxes: String(boxes) },
    querySelectorAll: (selector) => {
      assert.equal(selector, "input");
      return inputs;
    },
  };
  return {
    dataset: { control: "check_all", question: "9" },
    inputs,
    refused,
    options,
    querySelector: (selector) => ({ "[data-boxes]": list, "input[data-refusal]": refused })[selector],
    querySelectorAll: (selector) => {
      assert.equal(selector, ".answer-option");
      return options;
    },
  };
}

test("check all that apply reads every box (none ticked is an answer), forgets and shows them", () => {
  const fieldset = checkAllFieldset(4);
  const control = controlOf(fieldset);
  assert.equal(control, ANSWER_CONTROLS.check_all);
  assert.deepEqual(control.read(fieldset), [0, 0, 0, 0]);
  fieldset.inputs[1].checked = true;
  fieldset.inputs[3].checked = true;
  assert.deepEqual(control.read(fieldset), [0, 1, 0, 1]);
  control.highlight(fieldset);
  assert.deepEqual(fieldset.options.map((o) => o.classList.has("border-primary")), [false, true, false, true]);
  control.clear(fieldset);
  assert.deepEqual(control.read(fieldset), [0, 0, 0, 0]);
});

test("check all that apply gives its extra answers' boxes, and with “Prefer not to say” ticked the declined answer", () => {
  // 3 options, "No answer" (box 3) and "Not asked" (box 4): k = 5 boxes.
  const fieldset = checkAllFieldset(3, 5, 3);
  const control = controlOf(fieldset);
  const declined = [0, 0, 0, 1, 0]; // what the page's data gives as question.declined
  fieldset.inputs[0].checked = true;
  fieldset.inputs[2].checked = true;
  assert.deepEqual(control.read(fieldset), [1, 0, 1, 0, 0]);
  fieldset.refused.checked = true;
  assert.deepEqual(control.read(fieldset), declined);
  control.highlight(fieldset); // on every change: the options are unticked and disabled
  assert.deepEqual(fieldset.inputs.map((input) => [input.checked, input.disabled]),
    [[false, true], [false, true], [false, true]]);
  assert.deepEqual(fieldset.options.map((o) => o.classList.has("border-primary")), [false, false, false, true]);
  assert.deepEqual(control.read(fieldset), declined);
  fieldset.refused.checked = false; // unticked: the options are enabled again, none ticked
  control.highlight(fieldset);
  assert.deepEqual(fieldset.inputs.map((input) => input.disabled), [false, false, false]);
  assert.deepEqual(control.read(fieldset), [0, 0, 0, 0, 0]);
  fieldset.refused.checked = true;
  control.clear(fieldset);
  control.highlight(fieldset);
  assert.equal(fieldset.refused.checked, false);
  assert.deepEqual(fieldset.inputs.map((input) => input.disabled), [false, false, false]);
});

/** A fieldset holding one number box, as number.html renders it, and with `refusal` its
 * "Prefer not to say" check box. */
function numberFieldset(value, decimals = "1", refusal = false) {
  const classes = new Set();
  const attributes = {};
  const box = {
    value,
    dataset: { low: "-2.5", high: "40", decimals },
    validity: { badInput: false },
    classList: { toggle: (name, on) => (on ? classes.add(name) : classes.delete(name)), contains: (name) => classes.has(name) },
    setAttribute: (name, text) => { attributes[name] = text; },
  };
  return {
    dataset: { control: "number", question: "9" },
    box,
    classes,
    attributes,
    refusal: refusal ? { checked: false, value: "0", closest: () => ({ classList: box.classList }) } : null,
    querySelector(selector) {
      if (selector === "input[data-refusal]") return this.refusal;
      assert.equal(selector, "input[type=number]");
      return box;
    },
  };
}

test("a number box reads the number of the range with at most its places, and nothing else", () => {
  const control = ANSWER_CONTROLS.number;
  assert.equal(controlOf(numberFieldset("")), control);
  for (const [text, expected] of [
    ["12.5", 12.5], ["-2.5", -2.5], ["40", 40], ["7.50", 7.5], ["0", 0],
    ["", undefined], ["40.1", undefined], ["-3", undefined], ["1.25", undefined], ["1e3", undefined],
  ]) {
    assert.equal(control.read(numberFieldset(text)), expected, text);
  }
  assert.equal(control.read(numberFieldset("3.5", "0")), undefined);
  assert.equal(control.read(numberFieldset("3", "0")), 3);
});

test("'Prefer not to say' beside a number box is the extra answer, and empties and disables the box", () => {
  const control = ANSWER_CONTROLS.number;
  const fieldset = numberFieldset("12", "1", true);
  assert.equal(control.read(fieldset), 12);
  fieldset.refusal.checked = true;
  assert.deepEqual(control.read(fieldset), { extra: 0 });
  control.highlight(fieldset);
  assert.equal(fieldset.box.value, "");
  assert.equal(fieldset.box.disabled, true);
  assert.ok(!fieldset.classes.has("is-invalid"));
  control.clear(fieldset);
  assert.equal(fieldset.refusal.checked, false);
  assert.equal(control.read(fieldset), undefined);
  control.highlight(fieldset);
  assert.equal(fieldset.box.disabled, false);
});

test("a number box forgets its number and shows whether it holds an answer", () => {
  const control = ANSWER_CONTROLS.number;
  const fieldset = numberFieldset("41");
  control.highlight(fieldset);
  assert.ok(fieldset.classes.has("is-invalid"));
  assert.equal(fieldset.attributes["aria-invalid"], "true");
  fieldset.box.value = "39.5";
  control.highlight(fieldset);
  assert.ok(fieldset.classes.has("border-primary") && !fieldset.classes.has("is-invalid"));
  control.clear(fieldset);
  assert.equal(control.read(fieldset), undefined);
  control.highlight(fieldset);
  assert.ok(!fieldset.classes.has("border-primary") && !fieldset.classes.has("is-invalid"));
});
