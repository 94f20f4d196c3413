// Debian's Chromium, as the e2e tests and the console benchmark launch it (never a
// downloaded browser). Flags: no sandbox (CI runs as root), no GPU, nothing phoning home.
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
