/** Customer details, stored and returned exactly as given; the edge bounds every field. */
export interface Customer {
  readonly name?: string;
  readonly email?: string;
  readonly phone?: string;
  readonly notes?: string;
  readonly locale?: string;
  readonly extra?: Readonly<Record<string, string | number | boolean>>;
}
