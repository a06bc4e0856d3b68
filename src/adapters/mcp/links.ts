/** Where a person acts on what an agent was told: the console's approval, the CLI line, the payment page. */
export interface Links {
  approveUrl(approvalId: string): string;
  approvalCli(approvalId: string): string;
  paymentUrl(bookingId: string): string;
}

export interface LinkOptions {
  /** Where the approval page is reachable by a person. */
  readonly publicBaseUrl: string;
  /** Payment page of priced bookings: this base plus the booking id. */
  readonly paymentUrlBase: string;
  /** What the operator CLI needs to reach this database (`--db …`), for the approval's command line. */
  readonly cliDatabaseArgs: string;
}

export function linksFor(options: LinkOptions): Links {
  const base = options.publicBaseUrl.replace(/\/+$/, '');
  const db = options.cliDatabaseArgs ? ` ${options.cliDatabaseArgs}` : '';
  return {
    approveUrl: (approvalId) => `${base}/console/approvals/${encodeURIComponent(approvalId)}`,
    approvalCli: (approvalId) => `holdfast approvals approve ${approvalId}${db}`,
    paymentUrl: (bookingId) => `${options.paymentUrlBase}${bookingId}`,
  };
}
