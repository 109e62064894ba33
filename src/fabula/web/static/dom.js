// A tiny DOM builder, and `show`, which makes what a screen shows match what it just built while
// changing the page in place. Strings become text nodes, never markup: player text is always data.
//
// A screen is a function of its state: every change builds the screen's tree anew with `h`, and
// `show` morphs the page into it — an element that is still there stays the same element (the
// button under a finger, the field being typed in, a list scrolled sideways, a playing
// animation), and only what differs is changed. Elements match by their `data-key` (or
// `data-keep`) where they have one, else by their tag at their place among their siblings.

// Event handlers live in a property of the element (`_on`), behind one listener per event type:
// an element kept by `show` takes the new tree's handlers, which see the newest state.
function dispatch(event) {
  const handler = event.currentTarget._on?.[event.type];
  if (handler) return handler.call(event.currentTarget, event);
  return undefined;
}

function listen(element, type, handler) {
  element._on ??= {};
  element._types ??= new Set();
  element._on[type] = handler;
  if (!element._types.has(type)) {
    element._types.add(type);
    element.addEventListener(type, dispatch);
  }
}

export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const element = document.createElement(name || "div");
  if (classes.length) element.className = classes.join(" ");
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") listen(element, key.slice(2).toLowerCase(), value);
    else if (key === "class") element.className = element.className ? `${element.className} ${value}` : String(value);
    else if (key === "style" && typeof value === "object") Object.assign(element.style, value);
    // (`_name`: the screen's own data on the element, e.g. a countdown's words: kept up to date by
    // `show` as the page's properties are)
    else if ((key in element && typeof value !== "string") || key.startsWith("_")) {
      element[key] = value;
      (element._props ??= {})[key] = value;
    } else element.setAttribute(key, value === true ? "" : value);
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

function nodes(children) {
  const found = [];
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    found.push(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return found;
}

// Make `root`'s children what `children` (nodes, text, arrays of them) are, in place.
export function show(root, ...children) {
  morphChildren(root, nodes(children));
}

function keyOf(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  return node.getAttribute("data-key") ?? node.getAttribute("data-keep");
}

function sameKind(a, b) {
  if (a.nodeType !== b.nodeType) return false;
  if (a.nodeType !== Node.ELEMENT_NODE) return true;
  return a.localName === b.localName && a.namespaceURI === b.namespaceURI && a.type === b.type;
}

// An unkeyed element matches one of the same kind that also has its first class (its role: a
// `div.hand` never becomes a `div.table`, whatever else appears or goes before it).
function sameRole(a, b) {
  return sameKind(a, b) && (a.nodeType !== Node.ELEMENT_NODE || a.classList[0] === b.classList[0]);
}

function morphChildren(parent, wanted) {
  const before = [...parent.childNodes];
  const kept = new Set(before);
  const keyed = new Map();
  for (const node of before) {
    const key = keyOf(node);
    if (key !== null && !keyed.has(key)) keyed.set(key, node);
  }
  const used = new Set();
  let cursor = parent.firstChild;
  for (const next of wanted) {
    let match = null;
    if (kept.has(next)) {
      match = next; // a node the screen keeps across redraws (an album view, a reveal): as it is
    } else {
      const key = keyOf(next);
      if (key !== null) {
        const found = keyed.get(key);
        if (found && !used.has(found) && sameKind(found, next)) match = found;
      } else {
        for (let node = cursor; node; node = node.nextSibling) {
          if (!used.has(node) && keyOf(node) === null && sameRole(node, next)) {
            match = node;
            break;
          }
        }
      }
    }
    if (match && match !== next) morph(match, next);
    const node = match ?? next;
    used.add(node);
    if (node === cursor) {
      cursor = cursor.nextSibling;
    } else if (match && cursor && cursor.compareDocumentPosition(match) & Node.DOCUMENT_POSITION_FOLLOWING) {
      // found further on: what lies between goes instead (it is moved later, or removed), so that
      // the element that stays — under a finger, scrolled, focused — is never taken out and put back
      cursor = match.nextSibling;
    } else {
      parent.insertBefore(node, cursor);
    }
  }
  for (const node of before) if (!used.has(node) && node.parentNode === parent) node.remove();
}

const FIELDS = new Set(["INPUT", "TEXTAREA", "SELECT"]);
// The properties a person changes by hand.
const CHOSEN = new Set(["checked", "selected", "open", "value"]);

// Make `old` what `next` is (same kind), keeping `old`.
function morph(old, next) {
  if (old.nodeType !== Node.ELEMENT_NODE) {
    if (old.nodeValue !== next.nodeValue) old.nodeValue = next.nodeValue;
    return;
  }
  const shownValue = old.getAttribute("value");
  for (const { name, value } of [...next.attributes]) {
    if (old.getAttribute(name) === value) continue;
    if (name === "style") old.style.cssText = next.style.cssText; // (CSSOM: allowed by the page's CSP)
    else old.setAttribute(name, value);
  }
  for (const { name } of [...old.attributes]) if (!next.hasAttribute(name)) old.removeAttribute(name);
  const props = next._props ?? {};
  const before = old._props ?? {};
  for (const [key, value] of Object.entries(before)) {
    if (!(key in props) && old[key] === value) old[key] = typeof value === "boolean" ? false : "";
  }
  for (const [key, value] of Object.entries(props)) {
    // what a person sets (a radio checked, a section opened) stays until the screen says
    // otherwise: a redraw before the server has answered does not undo the tap
    if (CHOSEN.has(key) ? before[key] !== value : old[key] !== value) old[key] = value;
  }
  old._props = next._props;
  // the handlers of the new tree (they see the newest state); none where it has none
  for (const type of old._types ?? []) if (!next._on?.[type]) delete old._on[type];
  for (const [type, handler] of Object.entries(next._on ?? {})) listen(old, type, handler);
  // what a person typed stays (in the field, and once they left it) until the screen says otherwise
  const valueChanged = next.getAttribute("value") !== shownValue;
  if (FIELDS.has(old.tagName) && old !== document.activeElement && valueChanged) old.value = next.value;
  morphChildren(old, [...next.childNodes]);
}
