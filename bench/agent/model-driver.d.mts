export declare function passHatK(passesPerTask: number[], trials: number, k: number): number;
