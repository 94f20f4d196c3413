'use client';
// What every modal dialog of the console does with the keyboard, in one place: focus moves into
// the dialog when it opens, Tab and Shift+Tab cycle inside it (the page behind is out of reach
// while it is open), Escape closes it, and focus returns to whatever opened it when it closes.
import { type RefObject, useEffect, useRef } from 'react';

const FOCUSABLE = [
  'a[href]',
  'button:not([disabled])',
  'input:not([disabled]):not([type="hidden"])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  'summary',
  '[tabindex]:not([tabindex="-1"])',
].join(',');

/** The elements Tab reaches inside `box`, in order (hidden ones left out). */
export function tabbables(box: HTMLElement): HTMLElement[] {
  return [...box.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => el.tabIndex >= 0 && el.getClientRects().length > 0,
  );
}

/** Open modals, the topmost last: only it takes the keys. */
const stack: object[] = [];

/** Where Tab (or Shift+Tab) goes next inside `box`, or undefined to let the browser move. */
function nextFocus(box: HTMLElement, back: boolean): HTMLElement | undefined {
  const items = tabbables(box);
  if (items.length === 0) return box;
  const at = document.activeElement as HTMLElement | null;
  const i = at ? items.indexOf(at) : -1;
  if (i === -1) return back ? items[items.length - 1] : items[0];
  if (back && i === 0) return items[items.length - 1];
  if (!back && i === items.length - 1) return items[0];
  return undefined;
}

/**
 * Traps focus in the dialog `box` while it is mounted. `onEscape` decides what Escape does
 * (close, or cancel a countdown first); Escape stops there, so the shell's own Escape (which
 * closes panels) does not fire too. Listens on the document, so that focus lost to the page
 * (a focused button that disappeared) still comes back into the dialog on the next Tab.
 */
export function useModal(box: RefObject<HTMLElement | null>, onEscape: () => void): void {
  const onEscapeRef = useRef(onEscape);
  onEscapeRef.current = onEscape;
  useEffect(() => {
    const me = {};
    stack.push(me);
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!box.current?.contains(document.activeElement)) box.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      const el = box.current;
      if (!el || stack[stack.length - 1] !== me) return;
      if (e.key === 'Escape') {
        e.stopPropagation();
        e.preventDefault();
        onEscapeRef.current();
      } else if (e.key === 'Tab') {
        const next = nextFocus(el, e.shiftKey);
        if (!next) return;
        e.preventDefault();
        next.focus();
      }
    };
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('keydown', onKey, true);
      stack.splice(stack.indexOf(me), 1);
      // back where the person was, unless that element has gone meanwhile
      if (opener?.isConnected) opener.focus();
    };
  }, [box]);
}
