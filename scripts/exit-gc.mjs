/**
 * Preloaded into test processes (scripts/test.mjs). A test process ends by draining its event loop;
 * Node then tears the main isolate down, and a garbage collection still marking at that moment
 * finalises isolated-vm handles after isolated-vm has released its environment, which aborts the
 * process (`IsolateEnvironment::GetCurrent(): environment != nullptr`) after every test passed.
 * One full collection on 'exit' ends any marking while isolated-vm is still alive. The gateway
 * itself always leaves through process.exit(), which skips that teardown.
 *
 * `--expose-gc` on the command line would also give every plugin isolate a `gc` global, so the
 * collector is fetched only here, at exit, when no more isolates are made.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

process.on('exit', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  setFlagsFromString('--no-expose-gc');
  gc();
});
