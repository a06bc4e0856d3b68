import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const webhooksHelp: CommandDoc = {
  name: 'webhooks',
  usage: [
    'holdfast webhooks add URL --events all|TYPE,… [--include-contact] [--json]',
    'holdfast webhooks list [--json]',
    'holdfast webhooks remove ID',
    'holdfast webhooks deliveries [ID | EVENT_ID] [-n N] [--json]',
    'holdfast webhooks redeliver EVENT_ID',
    'holdfast webhooks enable ID',
  ],
  summary:
    'Send booking events to other systems: signed JSON (Standard Webhooks) with retries and a delivery log.',
  details: [
    'The signing secret (whsec_…) is printed once by add; Holdfast keeps it sealed with a key derived from the audit key.',
    'A subscription whose receiver keeps failing is disabled, with the reason, shown by list; enable switches it on again.',
    'deliveries shows the newest deliveries (one webhook’s with its ID), or every attempt of one event with its EVENT_ID.',
    'Only people manage webhooks (here, on the server’s machine): agents over MCP cannot create or read them.',
  ],
  options: [...DATABASE, 'events', 'include-contact', 'allow-private-webhooks', 'lines', 'json'],
  examples: [
    'holdfast webhooks add https://hooks.example.com/holdfast --events booking.confirmed,booking.cancelled',
    'holdfast webhooks deliveries evt_4f1c…',
  ],
};
