import { type Command, Help, InvalidArgumentError, type Option } from 'commander';

/** An http(s) URL option, checked when the command line is read (before anything is sent or printed). */
export const httpUrl = (example: string) => (value: string): string => {
  let url: URL;
  try { url = new URL(value); } catch { throw new InvalidArgumentError(`not a URL; give an http URL such as ${example}`); }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError(`${url.protocol} is not http: or https:; give an http URL such as ${example}`);
  return value;
};

/** `--help` says which options are required (commander only says so once one is missing). */
export function markRequired(command: Command): Command {
  return command.configureHelp({
    optionDescription(this: Help, option: Option): string {
      const text = Help.prototype.optionDescription.call(this, option);
      return option.mandatory ? `(required) ${text}` : text;
    },
  });
}
