// Placeholder for npm scripts whose issues have not landed yet.
console.log(`pagelog ${process.argv[2]}: not yet — this command lands with its issue.`);
