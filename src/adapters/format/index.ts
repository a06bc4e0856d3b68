// How instants and tables read for people in a terminal.
export { localSpan, relative, table } from './human-time.js';
export { terminalSafe } from './terminal.js';
