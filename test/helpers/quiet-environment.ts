/**
 * Run before every test file (jest.config.js `setupFiles`): the AWS SDK warns once per process, on stderr
 * and past jest's console, that its releases after January 2027 need Node 22. The router's own processes
 * turn the warning off the same way (emulator/main.ts); a test that reads the variable sets its own.
 */
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
