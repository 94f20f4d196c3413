'use client';
// Whether this browser notifies of fences (issue 25): opt-in, kept in localStorage per browser,
// and only once the browser granted the permission. useSyncExternalStore keeps every toggle and
// the notifier in step, across tabs too (the storage event).
import { useSyncExternalStore } from 'react';

const KEY = 'palisade.notify.fences';
const CHANGED = 'palisade-notify-changed';

export type NotifyState =
  /** the Notification API is missing: an old browser, or a page not served over HTTPS */
  | 'unavailable'
  /** the person said no, or the browser's settings block the site */
  | 'blocked'
  | 'off'
  | 'on';

function read(): NotifyState {
  if (typeof window === 'undefined' || typeof Notification === 'undefined') return 'unavailable';
  if (Notification.permission === 'denied') return 'blocked';
  return localStorage.getItem(KEY) === 'on' && Notification.permission === 'granted' ? 'on' : 'off';
}

function subscribe(onChange: () => void) {
  window.addEventListener('storage', onChange);
  window.addEventListener(CHANGED, onChange);
  return () => {
    window.removeEventListener('storage', onChange);
    window.removeEventListener(CHANGED, onChange);
  };
}

export const useFenceNotify = () => useSyncExternalStore(subscribe, read, () => 'off' as NotifyState);

/** Turn notifications on (asking the browser first) or off; what they are afterwards. */
export async function setFenceNotify(on: boolean): Promise<NotifyState> {
  if (typeof Notification === 'undefined') return 'unavailable';
  if (on && Notification.permission !== 'granted') await Notification.requestPermission();
  localStorage.setItem(KEY, on && Notification.permission === 'granted' ? 'on' : 'off');
  window.dispatchEvent(new Event(CHANGED));
  return read();
}

export const NOTIFY_WORDS: Record<NotifyState, string> = {
  unavailable: 'this browser cannot notify here (notifications need HTTPS or localhost)',
  blocked: "blocked in this browser's site settings: allow notifications for this site there",
  off: 'off',
  on: 'on: announced and held fences',
};
