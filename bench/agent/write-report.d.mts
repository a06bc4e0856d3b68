export function writeBetweenMarkers(path: string, content: string): Promise<void>;
