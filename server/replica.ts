// This process among Palisade's replicas: one identity per process start (host, pid and a random
// part), named on every response (x-palisade-replica) and on the pages, so a person — and a
// test — can tell which replica served them. Leader election holds the Lease under the same name.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

export const REPLICA_IDENTITY = `${hostname()}_${process.pid}_${randomUUID().slice(0, 8)}`;
