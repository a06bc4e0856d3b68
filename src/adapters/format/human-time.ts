/** How instants read for a person: the domain's wording, offered to the CLI and the pages. */
export * from '../../domain/time/human-time.js';
