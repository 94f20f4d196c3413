// The timeline's words for kinds and severities: state in text, never by colour alone.
import type { HistoryKind, Severity } from '@/lib/history/types';

export const KIND_LABEL: Record<HistoryKind, string> = {
  'node-condition': 'Node condition',
  fault: 'Simulated fault',
  'fence-step': 'Fence step',
  'fence-cancel': 'Fence cancelled',
  'admission-denial': 'Admission denial',
  'guarded-action': 'Guarded action',
  workload: 'Workload',
  'warning-event': 'Warning event',
  pod: 'Pod placement',
};

export const SEVERITY_CLASS: Record<Severity, string> = {
  info: 'border border-line',
  warning: 'border border-warn',
  critical: 'border border-crit font-semibold',
};
