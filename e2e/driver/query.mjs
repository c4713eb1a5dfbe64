// The element query that every engine runs inside the page, so a locator means the same
// thing in Chromium, Firefox and WebKit. A query is a list of steps applied in order to the
// document: `css` (descendants matching a selector), `and` (keep those also matched by
// another query from the document), `text` / `notText` (keep those whose text contains a
// string or matches a pattern), `nth` (keep one, by index; -1 is the last).

/**
 * Source of a page-side function `(steps) => Element[]`. Kept as text so each backend can
 * embed it in its own evaluate call; it must stay self-contained.
 */
export const RESOLVE_SOURCE = `(function resolve(steps) {
  const matches = (text, pattern) =>
    typeof pattern === 'string' ? text.includes(pattern) : new RegExp(pattern.source, pattern.flags).test(text);
  let elements = [document];
  for (const step of steps) {
    if (step.css !== undefined) {
      const found = [];
      for (const root of elements) {
        for (const element of root.querySelectorAll(step.css)) {
          if (!found.includes(element)) found.push(element);
        }
      }
      elements = found;
    } else if (step.and !== undefined) {
      const other = resolve(step.and);
      elements = elements.filter((element) => other.includes(element));
    } else if (step.text !== undefined) {
      elements = elements.filter((element) => matches(element.textContent, step.text));
    } else if (step.notText !== undefined) {
      elements = elements.filter((element) => !matches(element.textContent, step.notText));
    } else if (step.nth !== undefined) {
      const picked = step.nth < 0 ? elements[elements.length + step.nth] : elements[step.nth];
      elements = picked ? [picked] : [];
    }
  }
  return elements.filter((element) => element !== document);
})`;

/** A step that keeps elements whose text contains `pattern` (a string or a RegExp). */
export function textStep(pattern, key = 'text') {
  return { [key]: pattern instanceof RegExp ? { source: pattern.source, flags: pattern.flags } : pattern };
}

/**
 * Page-side state of the first element of a query: whether it exists, is visible (has a
 * box and is not `visibility: hidden`) and is enabled.
 */
export const STATE_SOURCE = `((steps) => {
  const element = ${RESOLVE_SOURCE}(steps)[0];
  if (!element) return { attached: false, visible: false, enabled: false };
  const style = getComputedStyle(element);
  const box = element.getBoundingClientRect();
  return {
    attached: true,
    visible: box.width > 0 && box.height > 0 && style.visibility !== 'hidden',
    enabled: !element.disabled,
  };
})`;

/** Builds `(fn)(arg)` as an expression, the argument as a JSON literal. */
export function callExpression(fnSource, arg) {
  return `(${fnSource})(${arg === undefined ? '' : JSON.stringify(arg)})`;
}

/**
 * Gives a text field its whole value at once and one `insertText` input event, as
 * Playwright's fill does in Chromium; resolves to false (nothing done) for any other element.
 * Runs in the page (firefox.mjs and webkit.mjs pass it there): typing key by key cost one
 * protocol round trip per character.
 */
export function fillAtOnce(element, text) {
  const field = element instanceof HTMLTextAreaElement
    || (element instanceof HTMLInputElement && !['checkbox', 'radio', 'file', 'range', 'color'].includes(element.type));
  if (!field) return false;
  element.focus();
  const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(element), 'value').set;
  setter.call(element, text);
  element.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
  return true;
}
