#include "cli/attachment_commands.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/record_format.h"

namespace stowage::cli {
namespace {

// What the commands' options are parsed into; shared so that it lives as
// long as the callbacks that read it.
struct Arguments {
  std::string file;
  std::string record;
  std::string name;
  std::string attachment_id;
};

std::optional<std::string_view> attachment_id_of(const Arguments& arguments) {
  if (arguments.attachment_id.empty()) return std::nullopt;
  return arguments.attachment_id;
}

void put(const ConfigOptions& options, const Arguments& arguments) {
  Stowage stowage = open_stowage(options);
  const Blob blob = stowage.create_and_upload(std::filesystem::path(arguments.file));
  const Attachment attachment =
      stowage.attach(parse_record(arguments.record), arguments.name, blob);
  run_due_jobs(stowage);
  // Read again: the attach has counted the reference.
  print_blob(std::cout, stowage.find_blob(blob.id));
  std::cout << "\n";
  print_attachment(std::cout, attachment);
}

void list(const ConfigOptions& options, const Arguments& arguments) {
  const Stowage stowage = open_stowage(options);
  const OwnerRef owner = parse_record(arguments.record);
  std::optional<std::string_view> name;
  if (!arguments.name.empty()) name = arguments.name;
  std::vector<Attachment> attachments;
  std::optional<std::string> page_token;
  do {
    AttachmentPage page = stowage.list(owner, name, page_token);
    attachments.insert(attachments.end(), page.attachments.begin(), page.attachments.end());
    page_token = page.next_page_token;
  } while (page_token);
  if (attachments.empty()) {
    std::cout << "no attachments on " << arguments.record
              << (name ? " named " + arguments.name : "") << "\n";
    return;
  }
  print_attachment_table(std::cout, attachments);
}

void detach(const ConfigOptions& options, const Arguments& arguments) {
  Stowage stowage = open_stowage(options);
  stowage.detach(parse_record(arguments.record), arguments.name, attachment_id_of(arguments));
  run_due_jobs(stowage);
  std::cout << "detached " << (arguments.attachment_id.empty() ? "every" : arguments.attachment_id)
            << " " << arguments.name << " from " << arguments.record << "; the blobs are kept\n";
}

void purge(const ConfigOptions& options, const Arguments& arguments) {
  Stowage stowage = open_stowage(options);
  stowage.purge(parse_record(arguments.record), arguments.name, attachment_id_of(arguments));
  run_due_jobs(stowage);
  std::cout << "purged " << (arguments.attachment_id.empty() ? "every" : arguments.attachment_id)
            << " " << arguments.name << " of " << arguments.record
            << " with the blobs nothing else references\n";
}

void add_record_argument(CLI::App& command, Arguments& arguments) {
  command.add_option("RECORD", arguments.record, "The owner record, TYPE:ID (e.g. Card:42)")
      ->required()
      ->check(record_validator());
}

void add_removal_options(CLI::App& command, Arguments& arguments) {
  add_record_argument(command, arguments);
  command.add_option("--name", arguments.name, "The attachment name, e.g. image")->required();
  command.add_option("--id", arguments.attachment_id,
                     "Only this attachment (an id from `stowage ls`); default: every one "
                     "of the name");
}

}  // namespace

void add_attachment_commands(CLI::App& app, const ConfigOptions& options) {
  auto arguments = std::make_shared<Arguments>();

  auto* put_command = app.add_subcommand("put", "Upload a file and attach it to a record");
  put_command->add_option("FILE", arguments->file, "The file to upload")
      ->required()
      ->check(CLI::ExistingFile);
  put_command->add_option("--record", arguments->record, "The owner record, TYPE:ID (e.g. Card:42)")
      ->required()
      ->check(record_validator());
  put_command->add_option("--name", arguments->name, "The attachment name, e.g. image")
      ->required();
  put_command->callback([&options, arguments] { put(options, *arguments); });

  auto* ls_command = app.add_subcommand("ls", "List a record's attachments");
  add_record_argument(*ls_command, *arguments);
  ls_command->add_option("--name", arguments->name, "Only the attachments of this name");
  ls_command->callback([&options, arguments] { list(options, *arguments); });

  auto* detach_command = app.add_subcommand(
      "detach", "Take attachments off a record, keeping their blobs");
  add_removal_options(*detach_command, *arguments);
  detach_command->callback([&options, arguments] { detach(options, *arguments); });

  auto* purge_command = app.add_subcommand(
      "purge", "Take attachments off a record and delete the blobs nothing else references");
  add_removal_options(*purge_command, *arguments);
  purge_command->callback([&options, arguments] { purge(options, *arguments); });
}

}  // namespace stowage::cli
