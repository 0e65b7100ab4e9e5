/**
 * Entry point of the bundle. Kept minimal: hook verbs skip commander and load
 * only the handler they need; everything else goes through the program.
 */
const argv = process.argv.slice(2);

async function main(): Promise<void> {
  if (argv[0] === 'hooks') {
    const { runHookCommand } = await import('./hooks.js');
    await runHookCommand(argv.slice(1));
    return;
  }
  // `entire … | head`: a reader that went away ends the command quietly, not with a stack trace
  // (not on the hook path: touching process.stdout builds a stream, which hooks spare)
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  if (argv.length === 1 && (argv[0] === 'version' || argv[0] === '--version' || argv[0] === '-v')) {
    // the one command people time: no commander
    const { printVersion } = await import('./commands/version.js');
    printVersion();
    return;
  }
  const { runProgram } = await import('./program.js');
  await runProgram(argv);
}

main().catch(async (e: unknown) => {
  // Last resort: commands report their own errors; this only catches bugs.
  const { err } = await import('./output.js');
  err(`Error: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
