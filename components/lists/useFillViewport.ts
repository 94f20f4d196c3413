'use client';
import { type RefObject, useLayoutEffect } from 'react';

/** Never shorter than this: on a tiny window the page scrolls rather than the list vanishing. */
const MIN_HEIGHT = 240;

/**
 * Sizes the element to reach the bottom of the window. The shell grows with its content
 * (min-h-dvh), so a list left to grow would be as tall as all its rows and the virtualizer would
 * render every one of them; bounded, only the rows in view exist. Re-fits when the window or the
 * page around it changes size (a banner coming or going changes the body's height).
 */
export function useFillViewport(ref: RefObject<HTMLElement | null>) {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const resize = () => {
      const top = el.getBoundingClientRect().top + window.scrollY;
      const height = `${Math.max(MIN_HEIGHT, Math.floor(window.innerHeight - top - spaceBelow(el)))}px`;
      if (el.style.height !== height) el.style.height = height;
    };
    resize();
    const ro = new ResizeObserver(resize);
    ro.observe(document.body);
    window.addEventListener('resize', resize);
    return () => {
      ro.disconnect();
      window.removeEventListener('resize', resize);
    };
  }, [ref]);
}

/** What the page lays out below the element: later siblings, and its ancestors' bottom padding and border. */
function spaceBelow(el: HTMLElement): number {
  let sum = 0;
  for (let n: HTMLElement | null = el; n && n !== document.body; n = n.parentElement) {
    for (let s = n.nextElementSibling; s; s = s.nextElementSibling) {
      const { position } = getComputedStyle(s);
      if (position !== 'fixed' && position !== 'absolute') sum += s.getBoundingClientRect().height;
    }
    const parent = n.parentElement;
    if (parent) {
      const cs = getComputedStyle(parent);
      sum += Number.parseFloat(cs.paddingBottom) + Number.parseFloat(cs.borderBottomWidth);
    }
  }
  return sum;
}
