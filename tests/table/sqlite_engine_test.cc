// What is particular to the sqlite engine: durability across reopen, many
// threads and several processes on one file, corruption detection, the
// catalog shared between engines, and its options. The behaviour shared with
// every engine is the conformance suite's.

#include "table/sqlite_engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "stowage/error.h"

namespace stowage::table {
namespace {

using ::testing::HasSubstr;

Value S(std::string s) { return Value::string(std::move(s)); }
Value N(std::int64_t n) { return Value::number(n); }

ErrorCode code_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no error was thrown";
  return ErrorCode::RecordNotFound;
}

TableDescription counters_table() {
  TableDescription description;
  description.name = "counters";
  description.key_schema.hash = {"pk", KeyType::S};
  description.key_schema.range = KeyAttribute{"sk", KeyType::N};
  description.global_secondary_indexes.push_back(
      {"by_owner", {{"owner", KeyType::S}, KeyAttribute{"sk", KeyType::N}}});
  return description;
}

Item key(std::string pk, std::int64_t sk) { return Item{{"pk", S(std::move(pk))}, {"sk", N(sk)}}; }

std::int64_t counter_value(Engine& engine, std::string pk) {
  auto item = engine.get(GetRequest{"counters", key(std::move(pk), 0)});
  if (!item) return 0;
  return *item->at("n").as_number().to_int64();
}

UpdateRequest increment(std::string pk) {
  UpdateRequest request{"counters", key(std::move(pk), 0), {}, std::nullopt};
  request.update.add("n", N(1));
  return request;
}

// Increments by reading the value and writing it back on the condition that
// it is unchanged, retrying on conflict: correct only if the check and the
// write are atomic.
void increment_by_read_check_write(Engine& engine, const std::string& pk) {
  for (;;) {
    std::int64_t seen = counter_value(engine, pk);
    Item item = key(pk, 0);
    item.emplace("n", N(seen + 1));
    Condition unchanged = seen == 0 ? cond::not_exists("n") : cond::eq("n", N(seen));
    try {
      engine.put(PutRequest{"counters", item, unchanged});
      return;
    } catch (const Error& e) {
      if (e.code() != ErrorCode::ConditionalCheckFailed) throw;
    }
  }
}

class SqliteEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device random;
    directory_ = std::filesystem::temp_directory_path() /
                 ("stowage-sqlite-test-" + std::to_string(::getpid()) + "-" +
                  std::to_string(random()));
    std::filesystem::create_directories(directory_);
    path_ = (directory_ / "table.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::unique_ptr<Engine> open(std::string synchronous = "FULL") {
    SqliteOptions options;
    options.path = path_;
    options.synchronous = std::move(synchronous);
    return make_sqlite_engine(options);
  }

  // Runs `sql` on the file through a connection of its own.
  void raw_sql(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    EXPECT_EQ(rc, SQLITE_OK) << (message ? message : "");
    sqlite3_free(message);
    sqlite3_close(db);
  }

  std::filesystem::path directory_;
  std::string path_;
};

TEST_F(SqliteEngineTest, ItemsIndexesAndTokensSurviveReopen) {
  TransactWriteRequest transaction;
  {
    auto engine = open();
    engine->create_table(counters_table());
    Item item = key("a", 1);
    item.emplace("owner", S("alice"));
    engine->put(PutRequest{"counters", item});
    transaction.actions.push_back(increment("tx"));
    transaction.client_request_token = "token-1";
    engine->transact_write(transaction);
  }
  auto engine = open();
  EXPECT_EQ(engine->describe("counters"), counters_table());
  auto item = engine->get(GetRequest{"counters", key("a", 1)});
  ASSERT_TRUE(item);
  EXPECT_EQ(item->at("owner"), S("alice"));
  QueryRequest by_owner{"counters", "by_owner", S("alice")};
  EXPECT_EQ(engine->query(by_owner).items.size(), 1u);

  // The token was remembered on disk: a repeat does not apply again, and a
  // different request under it is refused.
  engine->transact_write(transaction);
  EXPECT_EQ(counter_value(*engine, "tx"), 1);
  TransactWriteRequest other = transaction;
  other.actions.front() = increment("other");
  EXPECT_EQ(code_of([&] { engine->transact_write(other); }),
            ErrorCode::IdempotentParameterMismatch);
}

TEST_F(SqliteEngineTest, FileIsInWalMode) {
  open();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &statement, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)), "wal");
  sqlite3_finalize(statement);
  sqlite3_close(db);
}

TEST_F(SqliteEngineTest, ManyThreadsKeepEveryWrite) {
  auto engine = open("NORMAL");
  engine->create_table(counters_table());
  constexpr int kThreads = 8;
  constexpr int kRounds = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < kRounds; ++i) {
          engine->update(increment("added"));
          increment_by_read_check_write(*engine, "checked");
          Item item = key("thread-" + std::to_string(t), i + 1);
          item.emplace("owner", S("thread-" + std::to_string(t)));
          engine->put(PutRequest{"counters", item});
          QueryRequest own{"counters", "by_owner", S("thread-" + std::to_string(t))};
          if (engine->query(own).items.size() != static_cast<std::size_t>(i + 1)) ++failures;
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
        ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(counter_value(*engine, "added"), kThreads * kRounds);
  EXPECT_EQ(counter_value(*engine, "checked"), kThreads * kRounds);
}

TEST_F(SqliteEngineTest, SeveralProcessesShareOneFile) {
  open()->create_table(counters_table());
  constexpr int kProcesses = 4;
  constexpr int kRounds = 25;
  TransactWriteRequest once;
  once.actions.push_back(increment("once"));
  once.client_request_token = "shared-token";

  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        auto engine = open("NORMAL");
        for (int i = 0; i < kRounds; ++i) {
          increment_by_read_check_write(*engine, "checked");
          engine->update(increment("added"));
        }
        engine->transact_write(once);
      } catch (...) {
        status = 1;
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto engine = open();
  EXPECT_EQ(counter_value(*engine, "checked"), kProcesses * kRounds);
  EXPECT_EQ(counter_value(*engine, "added"), kProcesses * kRounds);
  EXPECT_EQ(counter_value(*engine, "once"), 1);
}

TEST_F(SqliteEngineTest, CorruptedItemIsAnIntegrityError) {
  {
    auto engine = open();
    engine->create_table(counters_table());
    engine->put(PutRequest{"counters", key("a", 1)});
  }
  raw_sql("UPDATE items SET body = x'ff00ff00ff'");
  auto engine = open();
  try {
    engine->get(GetRequest{"counters", key("a", 1)});
    FAIL() << "a corrupted item was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::IntegrityError);
    EXPECT_THAT(e.message(), HasSubstr("counters"));
  }
  EXPECT_EQ(code_of([&] { engine->query(QueryRequest{"counters", "", S("a")}); }),
            ErrorCode::IntegrityError);
}

TEST_F(SqliteEngineTest, UnknownTableIsResourceNotFound) {
  auto engine = open();
  EXPECT_EQ(code_of([&] { engine->get(GetRequest{"missing", key("a", 1)}); }),
            ErrorCode::ResourceNotFound);
  EXPECT_EQ(code_of([&] { engine->delete_table("missing"); }), ErrorCode::ResourceNotFound);
}

TEST_F(SqliteEngineTest, TableCreatedByAnotherEngineIsFound) {
  auto first = open();
  auto second = open();
  EXPECT_EQ(code_of([&] { first->describe("counters"); }), ErrorCode::ResourceNotFound);
  second->create_table(counters_table());
  second->put(PutRequest{"counters", key("a", 1)});
  EXPECT_TRUE(first->get(GetRequest{"counters", key("a", 1)}));
  EXPECT_EQ(code_of([&] { first->create_table(counters_table()); }),
            ErrorCode::ResourceInUse);
}

TEST_F(SqliteEngineTest, RecreatedTableStartsEmpty) {
  auto engine = open();
  engine->create_table(counters_table());
  engine->put(PutRequest{"counters", key("a", 1)});
  engine->delete_table("counters");
  engine->create_table(counters_table());
  EXPECT_FALSE(engine->get(GetRequest{"counters", key("a", 1)}));
}

TEST_F(SqliteEngineTest, SynchronousSettingIsChecked) {
  for (const char* setting : {"FULL", "NORMAL", "OFF", "normal"}) {
    auto engine = open(setting);
    EXPECT_EQ(code_of([&] { engine->describe("counters"); }), ErrorCode::ResourceNotFound)
        << setting;
  }
  try {
    open("EXTRA");
    FAIL() << "an unknown synchronous setting was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::ConfigurationError);
    EXPECT_THAT(e.message(), HasSubstr("EXTRA"));
  }
}

TEST_F(SqliteEngineTest, UnopenableFileIsAnIoErrorNamingIt) {
  path_ = (directory_ / "no-such-directory" / "table.db").string();
  try {
    open();
    FAIL() << "a database was opened in a missing directory";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::IoError);
    EXPECT_THAT(e.message(), HasSubstr(path_));
  }
  path_.clear();
  EXPECT_EQ(code_of([&] { open(); }), ErrorCode::ConfigurationError);
}

}  // namespace
}  // namespace stowage::table
