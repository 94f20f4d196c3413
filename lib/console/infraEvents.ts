// The embedded cluster's infrastructure says what happened to a node as a Kubernetes Event on it,
// whoever caused it — the infrastructure API, its CLI, a BMC (a fence agent), the console — the
// way a cloud provider reports a host's power and network: so the history records every fault and
// recovery (issue 25: faults injected outside the console were missing from the timeline). The
// console's own sealed Event still says who asked; this one says what the infrastructure did.

/** the Events' source component */
export const INFRA_COMPONENT = 'palisade-embedded-infrastructure';

/** the infrastructure's event type -> the fault's verb (as the console's faults name it), reason, severity */
export const INFRA_EVENTS: Record<string, { verb: string; reason: string; what: string; warning: boolean }> =
  {
    partitioned: {
      verb: 'partition',
      reason: 'InfraPartition',
      what: 'cut off from the API server',
      warning: true,
    },
    healed: {
      verb: 'heal',
      reason: 'InfraHeal',
      what: 'network link to the API server restored',
      warning: false,
    },
    'power-off': { verb: 'power-off', reason: 'InfraPowerOff', what: 'powered off', warning: true },
    'power-on': { verb: 'power-on', reason: 'InfraPowerOn', what: 'powered on', warning: false },
    'kubelet-crashed': {
      verb: 'kubelet-crash',
      reason: 'InfraKubeletCrash',
      what: 'kubelet crashed',
      warning: true,
    },
    'kubelet-restarted': {
      verb: 'kubelet-restart',
      reason: 'InfraKubeletRestart',
      what: 'kubelet restarted',
      warning: false,
    },
    meteor: { verb: 'meteor', reason: 'InfraMeteor', what: 'destroyed for ever (meteor)', warning: true },
  };

/** The fault's verb from an infrastructure Event's reason; undefined for other reasons. */
export function infraVerbOf(reason: string | undefined): string | undefined {
  return Object.values(INFRA_EVENTS).find((e) => e.reason === reason)?.verb;
}
