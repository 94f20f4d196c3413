// The files one ipmi_sim BMC runs from: lan.conf (ipmi_lan(5)), the MC set-up commands
// (ipmi_sim_cmd(5)), and the chassis_control program shared by every BMC of a cluster.
import { randomBytes } from 'node:crypto';

/** DNS-1123 names only: the node name ends up in a shell command ipmi_sim runs with popen */
const SAFE_NODE = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;

export function checkNodeName(node: string) {
  if (!SAFE_NODE.test(node) || node.length > 63)
    throw new Error(`cannot serve a BMC for node "${node}": not a DNS-1123 name`);
}

export interface LanConfig {
  node: string;
  port: number;
  username: string;
  password: string;
  chassisProgram: string;
}

/**
 * RMCP+ (lanplus) always offers every cipher suite; the 1.5 auth types are limited to md5 so
 * no client can log in with a clear-text or absent password. No user 1: no anonymous login.
 */
export function lanConf(c: LanConfig): string {
  const auths = ['callback', 'user', 'operator', 'admin'].map((p) => `    allowed_auths_${p} md5`);
  return [
    `name "${c.node}"`,
    'set_working_mc 0x20',
    '  startlan 1',
    `    addr 127.0.0.1 ${c.port}`,
    '    priv_limit admin',
    ...auths,
    `    guid ${randomBytes(16).toString('hex')}`,
    '  endlan',
    `  chassis_control "${c.chassisProgram} ${c.node}"`,
    `  user 2 true "${c.username}" "${c.password}" admin 10 md5`,
    '',
  ].join('\n');
}

/** a BMC management controller at the standard address, with no sensors */
export const BMC_EMU = [
  'mc_setbmc 0x20',
  'mc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02',
  'mc_enable 0x20',
  '',
].join('\n');

/**
 * ipmi_sim runs `<program> <node> get power` and expects `power:1|0` on stdout, and
 * `<program> <node> set power 0|1` or `set reset 1` to act (exit 0 = done). The program
 * forwards to the infrastructure API's BMC routes, so chassis status reads the node's power
 * live and chassis control changes it. Bash's /dev/tcp keeps it free of curl and fast (a
 * fence agent's status query runs it once per poll). The token is baked into this file
 * (mode 0700 in a private folder), not passed on a command line anyone can read in ps.
 */
export function chassisProgram(infraUrl: string, token: string): string {
  const u = new URL(infraUrl);
  return `#!/bin/bash
node=$1 verb=$2 item=$3 value=\${4:-}
case "$verb:$item:$value" in
  get:power:) method=GET path= ;;
  set:power:0) method=POST path=/off ;;
  set:power:1) method=POST path=/on ;;
  set:reset:1) method=POST path=/reset ;;
  *) echo "chassis_control: unsupported request: $*" >&2; exit 1 ;;
esac
exec 3<>/dev/tcp/${u.hostname}/${u.port} || exit 1
printf '%s /v1/bmc/%s%s HTTP/1.0\\r\\nHost: ${u.host}\\r\\nAuthorization: Bearer ${token}\\r\\nContent-Length: 0\\r\\n\\r\\n' \\
  "$method" "$node" "$path" >&3
# read to EOF (status 1); more than 128 means the 10 s timeout passed
IFS= read -r -d '' -t 10 resp <&3
[ $? -le 1 ] || { echo "chassis_control: no answer from the infrastructure API" >&2; exit 1; }
case $resp in
  "HTTP/1.1 200"*) ;;
  *) echo "chassis_control: $node $verb $item: \${resp##*$'\\r\\n\\r\\n'}" >&2; exit 1 ;;
esac
if [ "$verb" = get ]; then
  case $resp in *'"power":"on"'*) echo power:1 ;; *) echo power:0 ;; esac
fi
`;
}
