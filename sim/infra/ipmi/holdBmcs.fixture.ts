// Test fixture (server/fenceAgents/ipmi.int.test.ts): starts BMCs for two nodes, prints
// their endpoints as one JSON line, then waits to be SIGKILLed. The test then checks that no
// ipmi_sim outlived it. argv[2]: the state folder (the test removes it: we cannot, killed).
import { Infrastructure } from '../infrastructure.js';
import { startBmcs } from './bmcs.js';

const infra = new Infrastructure();
infra.addNode('k1');
infra.addNode('k2');
const bmcs = await startBmcs(infra, { stateDir: process.argv[2] });
console.log(JSON.stringify(bmcs.endpoints()));
setInterval(() => undefined, 60_000);
