import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const tenantsHelp: CommandDoc = {
  name: 'tenants',
  usage: ['holdfast tenants list [--json]', 'holdfast tenants add|set ID [--name N] [limits]'],
  summary: 'List tenants, add one, or change its limits (calls per minute, holds, approvals).',
  options: [
    'db',
    'database',
    'audit-key-file',
    'name',
    'calls-per-minute',
    'max-active-holds',
    'max-held-hours',
    'max-holds-per-connection',
    'max-open-approvals-per-person',
    'approval-window',
    'counter-offers',
    'customer-retention',
    'tool-profile',
    'tools',
    'disable-tool',
    'json',
  ],
  examples: [
    'holdfast tenants set local --calls-per-minute 600 --max-active-holds 20',
    'holdfast tenants set local --tool-profile hotel-ops --disable-tool th_hotel_submit_task_results',
    'holdfast tenants set local --tools catalog',
    'holdfast tenants set local --tool-profile expert-booking',
    'holdfast tenants set local --counter-offers off',
    'holdfast tenants set local --customer-retention 365',
  ],
};

export const usersHelp: CommandDoc = {
  name: 'users',
  usage: [
    'holdfast users list [--json]',
    'holdfast users add EMAIL [--role owner|approver|viewer] [--name N]',
    'holdfast users setup-link EMAIL',
    'holdfast users reset-password EMAIL [--keep-tokens]',
    'holdfast users disable EMAIL',
  ],
  summary: 'People who sign in to approve: add them, send a one-time setup link, reset, disable.',
  details: [
    'No password is ever set from the command line: each person sets their own through the link.',
    "reset-password ends the person's sessions and revokes their agent tokens and OAuth connections (made, perhaps, by whoever knew the password) unless --keep-tokens.",
  ],
  options: [...DATABASE, 'role', 'name', 'keep-tokens', 'public-url', 'json'],
  examples: ['holdfast users add ana@example.com --role approver'],
};

export const tokensHelp: CommandDoc = {
  name: 'tokens',
  usage: [
    'holdfast tokens create EMAIL [--name N] [--scopes S | --profile hotel-ops] [--write-policy P] [--expires DAYS] [--json]',
    'holdfast tokens list [--json]',
    'holdfast tokens revoke TOKEN_ID',
  ],
  summary: 'Personal access tokens (hf_pat_…) an agent host uses on /mcp, acting for one person.',
  details: [
    'The token is printed once and stored only as a digest.',
    'Scopes default to read,draft,write; --profile hotel-ops gives an operations agent read,draft,sensitive (the contract tools read mail, which carries contact details).',
  ],
  options: [...DATABASE, 'name', 'scopes', 'profile', 'write-policy', 'expires', 'json'],
  examples: [
    'holdfast tokens create ana@example.com --name "Claude on laptop" --scopes read,draft',
    'holdfast tokens create ops@hotel.example --name "mail agent" --profile hotel-ops',
  ],
};

export const hostsHelp: CommandDoc = {
  name: 'hosts',
  usage: [
    'holdfast hosts add NAME [--json]',
    'holdfast hosts list [--json]',
    'holdfast hosts revoke HOST_ID',
  ],
  summary: 'Host applications that may attest approvals (policy attested) by signing them with their key.',
  details: ['The private key is printed once; Holdfast keeps only the public key.'],
  options: [...DATABASE, 'json'],
  examples: ['holdfast hosts add "Acme desktop"'],
};

export const connectionsHelp: CommandDoc = {
  name: 'connections',
  usage: ['holdfast connections list [EMAIL] [--json]', 'holdfast connections revoke CONNECTION_ID'],
  summary: 'Agent hosts people let in through OAuth (one per grant), and revoking one.',
  details: [
    'Revoking ends the grant: its refresh tokens are removed and its access tokens are refused at their next call.',
  ],
  options: [...DATABASE, 'json'],
  examples: ['holdfast connections list ana@example.com', 'holdfast connections revoke 3kq0V…'],
};
