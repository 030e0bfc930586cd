// Runs once `nub install` has put chalk and ms into node_modules.
const chalk = require('chalk');
const ms = require('ms');
console.log(chalk.green(`hello from nub: a day is ${ms('1d')} ms`));
