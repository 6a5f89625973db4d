// Quizzes and predictions as a learner meets them: a quiz answered wrong, then right, in a real
// terminal (a private tmux server), its answers and tries kept across a restart; a prediction
// typed before a run step starts and judged beside the figure this machine measured; the
// headless commands' view of a quiz step; lint's sentences for bad quizzes and predictions.
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cjson/cJSON.h>
#include <fstream>
#include <sstream>
#include <thread>

using namespace iolab_test;

namespace
{

// iolab on the quiz test pack in a terminal (tmux_helpers.hpp), with its own state directory.
// start() may be called again after iolab quit: the same state, a new iolab. The directory is
// a base before the terminal, so the terminal (and iolab) is gone before the directory is.
struct QuizDir {
    TempDir dir_;
};
class QuizTui : QuizDir, public IolabTerm
{
  public:
    void start(int cols = 100, int rows = 30)
    {
        exit_status_shown();
        if (!IolabTerm::start(dir_.path, "--pack '" + data("packs/quiz") + "'", "", cols, rows))
            throw std::runtime_error("tmux new-session failed: " + last());
    }

    // The progress store's record of a step's field, as JSON text ("" when none).
    std::string record(const std::string &step, const std::string &field)
    {
        std::string text = slurp(dir_ / "state/iolab/progress.json");
        cJSON *root = cJSON_Parse(text.c_str());
        cJSON *f = cJSON_GetObjectItem(
            cJSON_GetObjectItem(
                cJSON_GetObjectItem(
                    cJSON_GetObjectItem(
                        cJSON_GetObjectItem(cJSON_GetObjectItem(root, "packs"), "quiz-test"),
                        "steps"),
                    ("q/" + step).c_str()),
                "fields"),
            field.c_str());
        char *s = f ? cJSON_PrintUnformatted(f) : nullptr;
        std::string out = s ? s : "";
        free(s);
        cJSON_Delete(root);
        return out;
    }

    const TempDir &dir() const
    {
        return dir_;
    }
};

// The row of the screen that contains needle, or -1.
int row_of(const std::string &screen, const std::string &needle)
{
    std::stringstream ss(screen);
    int y = 0;
    for (std::string line; std::getline(ss, line); y++)
        if (line.find(needle) != std::string::npos)
            return y;
    return -1;
}

// The text pane's words (the first box on the left) as one line: what wraps there reads whole.
std::string text_pane(const std::string &screen)
{
    static const std::string bar = "\u2502";
    std::stringstream ss(screen);
    std::string out;
    for (std::string line; std::getline(ss, line);) {
        size_t a = line.find(bar);
        size_t b = a == std::string::npos ? a : line.find(bar, a + bar.size());
        if (b == std::string::npos)
            continue;
        std::string cell = line.substr(a + bar.size(), b - a - bar.size());
        size_t f = cell.find_first_not_of(' '), l = cell.find_last_not_of(' ');
        if (f != std::string::npos)
            out += (out.empty() ? "" : " ") + cell.substr(f, l - f + 1);
    }
    return out;
}

// Polls until the text pane reads needle (wrapped or not).
bool wait_text(QuizTui &t, const std::string &needle, double timeout_s = 20)
{
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    do {
        if (text_pane(t.screen()).find(needle) != std::string::npos)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } while (std::chrono::steady_clock::now() < deadline);
    INFO(text_pane(t.screen()));
    return false;
}

} // namespace

TEST_CASE("quiz: answered wrong then right in a real terminal, kept across a restart")
{
    QuizTui t;
    t.start();
    REQUIRE(t.wait_for("Start:"));
    t.keys({"Enter"}); // the lesson opens on its first step, the run step
    REQUIRE(t.wait_for("Step 1/2"));
    t.keys({"n"});
    REQUIRE(t.wait_for("Question 1 of 2"));
    CHECK(t.last().find("0 of 2 right") != std::string::npos);
    // The quiz's keys are in the footer (drawn after the question: a capture may come between).
    CHECK(t.wait_for("1-9 choose"));
    CHECK(t.wait_for("Enter check"));

    // Enter with nothing chosen only says what to do.
    t.keys({"Enter"});
    REQUIRE(t.wait_for("Choose an answer first"));

    // A wrong answer: its mark and its feedback, no explanation yet.
    t.keys({"2"});
    REQUIRE(t.wait_for("(*) recv"));
    t.keys({"Enter"});
    REQUIRE(t.wait_for("recv waits for the one socket it is given."));
    CHECK(t.last().find("Not yet") != std::string::npos);
    CHECK(t.last().find("1 try") != std::string::npos);
    CHECK(t.last().find("epoll_wait sleeps until") == std::string::npos);

    // The right answer, chosen with the mouse this time.
    int y = row_of(t.last(), "epoll_wait");
    REQUIRE(y > 0);
    t.click(10, y);
    REQUIRE(t.wait_for("(*) epoll_wait"));
    t.keys({"Enter"});
    REQUIRE(t.wait_for("epoll_wait sleeps until one of the registered descriptors is ready."));
    CHECK(t.last().find("answered right") != std::string::npos);
    CHECK(t.last().find("2 tries") != std::string::npos);
    CHECK(t.last().find("1 of 2 right") != std::string::npos);

    // Several right answers: one of them is not enough, and says so.
    t.keys({"Tab"});
    REQUIRE(t.wait_for("Question 2 of 2"));
    t.keys({"1", "Enter"});
    REQUIRE(t.wait_for("1 more answer is right as well"));
    t.keys({"2", "Enter"});
    REQUIRE(t.wait_for("read copies into your buffer and send copies out of it."));
    REQUIRE(t.wait_for("(done)"));
    CHECK(t.last().find("2 of 2 right") != std::string::npos);

    // The store keeps each question's last choice, tries and verdict, and the best score: both
    // questions checked right, 2 points of 2.
    std::string rec = t.record("check", "quiz");
    CHECK(rec.find(R"({"questions":[{"chosen":[0],"tries":2,"right":true},)"
                   R"({"chosen":[0,1],"tries":2,"right":true}],"score":{"points":2,"of":2,)") == 0);

    // Quit and come back: the quiz is as it was left.
    t.keys({"q"});
    REQUIRE(t.wait_for("IOLAB-EXITED 0"));
    t.start();
    REQUIRE(t.wait_for("Continue:"));
    t.keys({"Enter"}); // continue where the learner was: the quiz
    REQUIRE(t.wait_for("2 of 2 right"));
    CHECK(t.last().find("(done)") != std::string::npos);
    CHECK(t.last().find("answered right") != std::string::npos);
    CHECK(t.last().find("2 tries") != std::string::npos);
    // Another try after a restart adds to the count kept.
    t.keys({"3", "Enter"});
    REQUIRE(t.wait_for("3 tries"));
    CHECK(t.last().find("sendfile copies inside the kernel") != std::string::npos);
    t.keys({"q"});
    REQUIRE(t.wait_for("IOLAB-EXITED 0"));
    CHECK(t.record("check", "quiz").find(R"({"chosen":[0,1,2],"tries":3,"right":true})") !=
          std::string::npos);
}

TEST_CASE("predict: asked before the start, then judged beside this machine's measurement")
{
    QuizTui t;
    t.start();
    REQUIRE(t.wait_for("Start:"));
    t.keys({"Enter"});
    REQUIRE(t.wait_for("Step 1/2"));
    REQUIRE(t.wait_for("Your predictions:"));

    // Enter asks the predictions instead of starting.
    t.keys({"Enter"});
    REQUIRE(t.wait_for("Prediction 1 of 2"));
    CHECK(t.last().find("How many read() calls per request") != std::string::npos);
    // Typing is the prediction's, not a command: n does not leave the step.
    t.keys({"n"});
    REQUIRE(t.wait_for("Type a number"));
    CHECK(t.last().find("Prediction 1 of 2") != std::string::npos);
    t.keys({"Enter"});
    REQUIRE(t.wait_for("Type a number such as 16, 0.5 or 16.5k"));
    // Typed with a unit, as the screen writes its figures (16.5k, 4.07M): 0.001k is 1.
    t.keys({"0", ".", "0", "0", "1", "k", "Enter"});
    REQUIRE(t.wait_for("Prediction 2 of 2"));
    // A choice: the mode's key. thread makes fewer server calls per request than epoll (no
    // epoll_wait), which the judge must say from the measurement.
    t.keys({"2"});
    REQUIRE(t.wait_for("[running"));
    // The number: one read() per request, measured here.
    REQUIRE(wait_text(t, "you said 1, measured 1 read() calls: right (within 25% counts)"));
    // The choice is judged once both modes have run.
    CHECK(text_pane(t.screen())
              .find("you chose thread; measured once each has run: epoll, "
                    "thread") != std::string::npos);
    t.keys({"2"});
    REQUIRE(t.wait_for("mode: thread"));
    REQUIRE(wait_text(t, "you chose thread; the most: epoll (", 30));
    INFO(text_pane(t.screen()));
    CHECK(text_pane(t.screen()).find("): wrong") != std::string::npos);

    // Both verdicts are kept, with what was measured.
    std::string rec;
    for (int i = 0; i < 100 && rec.find("\"mode\":\"thread\",\"verdict\"") == std::string::npos;
         i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        rec = t.record("watch", "predict");
    }
    INFO(rec);
    CHECK(rec.find(R"({"number":1,"verdict":"right","measured":)") != std::string::npos);
    CHECK(rec.find(R"({"mode":"thread","verdict":"wrong","measured":)") != std::string::npos);

    // Asked once: a restart of the scenario does not ask again.
    // "Starting" shows only while the programs start, which a quiet machine makes too short to
    // catch: give the restart time to ask, then see the scenario running and nothing asked.
    t.keys({"r"});
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    REQUIRE(t.wait_for("[running"));
    CHECK(t.screen().find("Prediction 1 of 2") == std::string::npos);
    t.keys({"q", "y"});
    REQUIRE(t.wait_for("IOLAB-EXITED 0"));
}

TEST_CASE("predict: Esc skips the questions and starts the scenario")
{
    QuizTui t;
    t.start();
    REQUIRE(t.wait_for("Start:"));
    t.keys({"Enter"});
    REQUIRE(t.wait_for("Step 1/2"));
    t.keys({"Enter"});
    REQUIRE(t.wait_for("Prediction 1 of 2"));
    t.keys({"Escape"});
    REQUIRE(t.wait_for("[running"));
    REQUIRE(t.wait_for("not predicted"));
    t.keys({"q", "y"});
    REQUIRE(t.wait_for("IOLAB-EXITED 0"));
    CHECK(t.record("watch", "predict") == "");
}

TEST_CASE("quiz: headless commands list the kind and do not run it")
{
    auto [code, out] = run({bin("iolab"), "list", "--pack", data("packs/quiz")});
    CHECK(code == 0);
    CHECK(out.find("q/check                      quiz  Check yourself") != std::string::npos);
    auto [rc, msg] = run({bin("iolab"), "run", "--pack", data("packs/quiz"), "q/check"});
    CHECK(rc != 0);
    CHECK(msg.find("'q/check' is not a step that runs anything; the run steps of 'q' are: "
                   "q/watch.") != std::string::npos);
}

TEST_CASE("lint: bad quizzes and predictions are reported at file:line:col")
{
    for (const char *name : {"quiz", "predict"}) {
        std::string dir = data(std::string("packs/bad/") + name);
        auto [code, out] = run({bin("iolab"), "lint", dir});
        INFO(out);
        CHECK(code == 1);
        std::ifstream in(dir + "/expected.txt");
        for (std::string line; std::getline(in, line);)
            CHECK(out.find(dir + "/" + line) != std::string::npos);
    }
    // The built-in pack's quizzes and predictions lint clean.
    auto [code, out] = run({bin("iolab"), "lint", source_dir() + "/lessons"});
    CHECK(code == 0);
}
