/**
 * The rxjs the service uses, each piece from its own module of the package (`rxjs/internal/*`, in its
 * exports): `rxjs` itself loads all of its 223 files, about 150 ms of CPU in every process and in every test
 * suite that starts the service, where these take some 30 files. The same classes and functions either way.
 */
export { Subject } from 'rxjs/internal/Subject';
export { defer } from 'rxjs/internal/observable/defer';
export { from } from 'rxjs/internal/observable/from';
export { merge } from 'rxjs/internal/observable/merge';
export { timer } from 'rxjs/internal/observable/timer';
export { filter } from 'rxjs/internal/operators/filter';
export { firstValueFrom } from 'rxjs/internal/firstValueFrom';
